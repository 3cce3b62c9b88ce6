import { Controller, Get, HttpCode, ServiceUnavailableException } from '@nestjs/common';
import { Public } from '../auth/roles';
import { DatabaseRepository } from '../database/database.repository';

/** Probes for orchestrators; no authentication. */
@Public()
@Controller()
export class HealthController {
  constructor(private readonly database: DatabaseRepository) {}

  /** The process is up and serving HTTP. */
  @Get('healthz')
  @HttpCode(200)
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** The database answers; 503 otherwise. */
  @Get('readyz')
  async readyz(): Promise<{ status: 'ok' }> {
    try {
      await this.database.ping();
    } catch (err) {
      // unauthenticated: say what is not ready, never the error (addresses, users)
      throw new ServiceUnavailableException({ status: 'unavailable', reason: 'database not reachable' }, { cause: err });
    }
    return { status: 'ok' };
  }
}
