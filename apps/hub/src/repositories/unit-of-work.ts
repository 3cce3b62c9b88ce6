import { Inject, Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { DataSource, type EntityManager } from 'typeorm';
import { UnavailableError } from '../common/errors';
import { CryptoRepository } from '../crypto/crypto.repository';
import { HUB_LOGGER } from '../logging/logging.module';
import { isConcurrencyConflict, sqlState } from './database-errors';
import { type Repositories, repositoriesFor } from './repositories';

/** Runs of one transaction PostgreSQL keeps ending as a deadlock or serialization failure, before giving up. */
export const CONFLICT_ATTEMPTS = 3;

/** The repositories of one open transaction, plus a hook for what must wait for its commit. */
export interface Transaction extends Repositories {
  /** Runs `fn` once the transaction has committed; never if it rolls back. */
  afterCommit(fn: () => void): void;
}

/**
 * Writes that span several tables: `transaction(fn)` hands `fn` repositories
 * bound to one database transaction, commits when `fn` resolves and rolls
 * everything back when it throws. Inside `fn`, use only the repositories it
 * was given: on the embedded database a second connection waits for this one.
 * A transaction PostgreSQL ends because of a concurrent one (deadlock,
 * serialization failure) runs again, so `fn` must do nothing but its writes
 * (anything else goes to afterCommit).
 */
@Injectable()
export class UnitOfWork {
  constructor(
    private readonly ds: DataSource,
    private readonly crypto: CryptoRepository,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * The repositories of a transaction a repository opened itself (e.g. the
   * lease's fenced write), for writes that must commit with it. The caller
   * runs `committed()` once that transaction has committed.
   */
  join(manager: EntityManager): { tx: Transaction; committed: () => void } {
    const hooks: Array<() => void> = [];
    return { tx: { ...repositoriesFor(manager, this.crypto), afterCommit: (f) => hooks.push(f) }, committed: () => this.runAll(hooks) };
  }

  async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const committed: Array<() => void> = [];
      try {
        const result = await this.ds.transaction((manager) => fn({ ...repositoriesFor(manager, this.crypto), afterCommit: (f) => committed.push(f) }));
        this.runAll(committed);
        return result;
      } catch (err) {
        if (!isConcurrencyConflict(err)) throw err;
        if (attempt === CONFLICT_ATTEMPTS) {
          throw new UnavailableError(`the database ended this change ${CONFLICT_ATTEMPTS} times in a conflict with concurrent ones (nothing was changed); retry`, { cause: err });
        }
        this.logger.warn({ code: sqlState(err), attempt }, 'transaction ended by a concurrent one; running it again');
        // apart, so the two sides of a deadlock do not meet again at once
        await sleep(attempt * (5 + Math.random() * 20));
      }
    }
  }

  private runAll(committed: Array<() => void>): void {
    for (const f of committed) {
      try {
        f();
      } catch (err) {
        // the data is committed; a failing follow-up must not turn that into an error for the caller
        this.logger.error({ err }, 'after-commit action failed');
      }
    }
  }
}
