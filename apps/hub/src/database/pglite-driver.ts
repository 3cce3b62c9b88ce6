import { EventEmitter } from 'node:events';
import type { PGlite, Results } from '@electric-sql/pglite';

// A `pg`-shaped driver over one PGlite instance, for TypeORM's postgres driver.
// PGlite is a single session, so the "pool" hands out that one connection to
// one query runner at a time: a transaction never interleaves with another
// runner's statements. (typeorm-pglite shares a process-wide instance and lets
// runners interleave, which breaks transactions under concurrent requests.)

type Release = (err?: unknown) => void;
type ConnectCallback = (err: Error | null, client: PGliteClient | null, release: Release) => void;

interface PgResult {
  rows: unknown[];
  rowCount: number;
  command: string;
  fields: Results['fields'];
}

class PGliteClient extends EventEmitter {
  constructor(private readonly db: PGlite) {
    super();
  }

  /** `sql` may be a pg query config ({ name, text }): PGlite is one in-process session, so the name is not needed. */
  async query(statement: string | { text: string }, params?: unknown[]): Promise<PgResult> {
    const sql = typeof statement === 'string' ? statement : statement.text;
    if (params !== undefined && params.length > 0) {
      return toPg(await this.db.query(sql, params));
    }
    // Without parameters TypeORM may send several statements (migrations do);
    // like pg, answer with the last statement's result.
    const all = await this.db.exec(sql);
    return toPg(all[all.length - 1] ?? { rows: [], fields: [] });
  }
}

function toPg(r: Results): PgResult {
  return { rows: r.rows, rowCount: r.rowCount ?? r.affectedRows ?? r.rows.length, command: r.command ?? '', fields: r.fields };
}

/** A one-connection pool: connect() waits until the previous holder released. */
class PGlitePool extends EventEmitter {
  private readonly client: PGliteClient;
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: PGlite,
    private readonly onClose: () => void,
  ) {
    super();
    this.client = new PGliteClient(db);
  }

  connect(callback: ConnectCallback): void {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const previous = this.tail;
    this.tail = previous.then(() => held);
    void previous.then(() => {
      let released = false;
      callback(null, this.client, () => {
        if (!released) {
          released = true;
          release();
        }
      });
    });
  }

  end(callback: (err: Error | null) => void): void {
    this.db.close().then(
      () => {
        this.onClose();
        callback(null);
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
    );
  }
}

/** The value for TypeORM's `driver` option: `new driver.Pool()` yields a pool over `db`; `onClose` runs once it is closed. */
export function pgliteDriver(db: PGlite, onClose: () => void = () => undefined): { Pool: new () => PGlitePool } {
  return {
    Pool: class extends PGlitePool {
      constructor() {
        super(db, onClose);
      }
    },
  };
}
