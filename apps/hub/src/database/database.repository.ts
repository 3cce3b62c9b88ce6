import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** Database reachability, for /readyz. */
@Injectable()
export class DatabaseRepository {
  constructor(private readonly ds: DataSource) {}

  /** Runs `SELECT 1`; rejects when the database is closed or does not answer within timeoutMs. */
  async ping(timeoutMs = 2000): Promise<void> {
    if (!this.ds.isInitialized) throw new Error('database connection is closed');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`database did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([this.ds.query('SELECT 1'), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
