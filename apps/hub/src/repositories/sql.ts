// Helpers for the hand-written SQL of the read paths: list and get routes
// run one statement each and map plain rows, skipping the ORM's query
// building and entity hydration, which dominated their cost.
import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { genericPlanPool, mainPool } from '../database/generic-plan-pool';
import type { KnownTotal, ListTotals } from './list-totals';

/** Positional parameters: each value gets the next `$n`, so fragments compose without counting. */
export class SqlParams {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** A timestamptz as the API's ISO 8601 text (UTC, milliseconds, as Date#toISOString writes it), formatted by the database. */
export function isoTime(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** `WHERE a AND b`, or nothing. */
export function whereAll(conditions: string[]): string {
  return conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
}

/** A statement and its parameters. */
export interface Statement {
  text: string;
  values: unknown[];
}

/**
 * `prepare`: run as a named prepared statement (for a statement of a fixed
 * shape). `planOnce`: and planned once per session, on the generic-plan pool
 * (database/generic-plan-pool.ts); for statements whose plan does not depend
 * on their values, where PostgreSQL would otherwise plan each run again.
 */
export interface PrepareOptions {
  prepare: boolean;
  planOnce?: boolean;
}

/**
 * Runs a statement of a fixed shape (its text varies only with its
 * parameters) as a named prepared statement: each connection parses it once
 * and PostgreSQL may keep its plan, which costs as much as running it for
 * the small reads of the API. Statements whose text varies with the input
 * (label selectors) must not come here: each name stays prepared on every
 * connection for its lifetime.
 */
export async function queryPrepared<T>(db: EntityManager, statement: Statement, options: PrepareOptions = { prepare: true }): Promise<T[]> {
  const name = options.prepare ? statementName(statement.text) : undefined;
  // Outside a transaction, straight to pg's pool: TypeORM's query runner
  // (made, connected, broadcast to, released per call) cost more than the
  // small reads it carried. The embedded database's driver has no pg pool.
  const pool = db.queryRunner ? undefined : ((name && options.planOnce && genericPlanPool(db.connection)) || mainPool(db.connection));
  if (pool) return (await pool.query({ name, text: statement.text, values: statement.values })).rows as T[];
  if (!name) return db.query(statement.text, statement.values);
  // pg takes a query config ({ name, text }) where TypeORM passes its query string through
  return db.query({ name, text: statement.text } as unknown as string, statement.values);
}

// Statement texts of fixed shape are few; their names are hashed once.
const names = new Map<string, string>();

function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    if (names.size >= 1000) names.clear();
    name = `flotilla_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * FROM items giving `lv.version` (the membership version, as text in
 * "listVersion") and `n.total`: the count `countSql` yields, or NULL when
 * the version equals `sentVersion` (a parameter), whose total the caller
 * remembers (ListTotals). CASE evaluates the count only when needed, and
 * OFFSET 0 keeps the planner from copying it into every row of the page.
 */
export function membershipTotal(countSql: string, sentVersion: string): string {
  return `list_versions AS lv
    CROSS JOIN LATERAL (SELECT CASE WHEN lv.version = CAST(${sentVersion} AS bigint) THEN NULL ELSE (${countSql})::int END AS total OFFSET 0) AS n`;
}

/** The condition that picks the one row of list_versions membershipTotal reads. */
export const MEMBERSHIP_ROW = `lv.name = 'membership'`;

/** The columns membershipTotal adds to a list query's rows. */
export interface ListAnswer {
  listVersion: string;
  total: number | null;
}

/** The total of a list from its first row: counted now (and remembered), or the one `sent` whose version held. */
export function totalOf(totals: ListTotals | undefined, key: string, sent: KnownTotal | undefined, row: ListAnswer): number {
  if (!totals) return row.total!;
  return totals.resolve(key, sent, { version: row.listVersion, total: row.total });
}

/** The rows of an UPDATE/DELETE … RETURNING, which TypeORM's postgres driver answers as [rows, count]. */
export function returnedRows<T>(res: unknown): T[] {
  if (Array.isArray(res) && res.length === 2 && Array.isArray(res[0]) && typeof res[1] === 'number') return res[0] as T[];
  return res as T[];
}
