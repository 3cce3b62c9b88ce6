// Where PostgreSQL's time goes during a bench: a sampling profile of the
// statements running (pg_stat_activity, no extension or restart needed), and
// the plans of the slow ones (auto_explain, which ships with PostgreSQL).
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { Client } from 'pg';

export async function samplePostgres(url: string, everyMs = 10): Promise<{ stop(): Promise<Array<{ statement: string; samples: number }>> }> {
  const client = new Client({ connectionString: url });
  await client.connect();
  const counts = new Map<string, number>();
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await client.query<{ q: string }>(`SELECT coalesce(wait_event_type || ':' || wait_event, 'cpu') || '  ' || left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS q FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND backend_type = 'client backend'`);
      for (const r of rows) counts.set(r.q, (counts.get(r.q) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await client.end();
      return [...counts].map(([statement, samples]) => ({ statement, samples })).sort((a, b) => b.samples - a.samples);
    },
  };
}

/**
 * PostgreSQL's own plans of slow statements (auto_explain, loaded into every
 * session from the start, logging only between `start` and `stop`), summed
 * per statement: where the time of a phase went, with the plan that spent it
 * in `planFile`. Call before any client connects.
 */
export async function explainSlowStatements(url: string, logFile: string, minMs: number): Promise<{ start(): Promise<void>; stop(planFile: string): Promise<Array<{ statement: string; count: number; totalMs: number }>> }> {
  const set = async (sql: string[]) => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      for (const s of sql) await client.query(s);
    } finally {
      await client.end();
    }
  };
  // LOAD first: ALTER SYSTEM refuses a module's settings before the module is known
  await set(["LOAD 'auto_explain'", "ALTER SYSTEM SET session_preload_libraries = 'auto_explain'", 'ALTER SYSTEM SET auto_explain.log_min_duration = -1',
    'ALTER SYSTEM SET auto_explain.log_analyze = on', 'ALTER SYSTEM SET auto_explain.log_buffers = on', 'ALTER SYSTEM SET auto_explain.log_triggers = on', 'SELECT pg_reload_conf()']);
  let from = 0;
  const toggle = (ms: number) => set([`ALTER SYSTEM SET auto_explain.log_min_duration = ${ms}`, 'SELECT pg_reload_conf()']);
  return {
    async start() {
      from = statSync(logFile).size;
      await toggle(minMs);
    },
    async stop(planFile: string) {
      await toggle(-1);
      const text = readFileSync(logFile, 'utf8').slice(from);
      writeFileSync(planFile, text);
      const totals = new Map<string, { count: number; totalMs: number }>();
      // the statement: its first line and the indented lines that continue it, up to the plan's first node
      for (const m of text.matchAll(/duration: ([\d.]+) ms +plan:\n\tQuery Text: ([^\n]*(?:\n\t[ \t][^\n]*)*)/g)) {
        const statement = m[2].replace(/\s+/g, ' ').slice(0, 110);
        const t = totals.get(statement) ?? { count: 0, totalMs: 0 };
        t.count++;
        t.totalMs += Number(m[1]);
        totals.set(statement, t);
      }
      return [...totals].map(([statement, t]) => ({ statement, ...t })).sort((a, b) => b.totalMs - a.totalMs);
    },
  };
}
