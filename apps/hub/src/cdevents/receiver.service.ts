import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ArtifactPublished, cdeventsReceiver, defaultReceiverLimits, type MatchedProject, type ReceiverBackend } from '@flotilla/cdevents';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { ANNOUNCE, type Announce } from '../auth/auth.module';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { HUB_LOGGER } from '../logging/logging.module';
import { CdeventOutboxRepository } from '../repositories/cdevent-outbox.repository';
import { RunTriggers } from '../scheduler/run-triggers';
import { CdeventsMetrics } from './cdevents.metrics';

/**
 * The CDEvents receiver on its own port (FLOTILLA_EVENTS_PORT), apart from
 * the API so it can have its own Service and Ingress. An `artifact
 * published` naming a Project's repository makes that Project resolve its
 * tag now, through the same trigger as a changed source.
 */
@Injectable()
export class CdeventsReceiverService implements OnApplicationBootstrap, OnApplicationShutdown, ReceiverBackend {
  private server: Server | undefined;

  constructor(
    private readonly outbox: CdeventOutboxRepository,
    private readonly triggers: RunTriggers,
    private readonly metrics: CdeventsMetrics,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
    @Inject(ANNOUNCE) private readonly announce: Announce,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { receiverPort, receiverSecrets } = this.config.cdevents;
    if (receiverPort === undefined) return;
    const server = createServer(
      cdeventsReceiver({
        secrets: receiverSecrets,
        ...defaultReceiverLimits(),
        backend: this,
        observe: (outcome, d) => {
          this.metrics.received.inc({ outcome });
          const fields = { status: d.status, ...(d.event ? { event: d.event.id, source: d.event.source, repository: d.event.artifact.repository } : {}) };
          if (outcome === 'error') this.logger.error({ ...fields, err: d.message }, 'CDEvents receiver failed');
          else this.logger.info({ ...fields, outcome, message: d.message }, 'CDEvent received');
        },
      }),
    );
    // a slow sender must not hold a socket for long: the whole request within 10 s
    server.requestTimeout = 10_000;
    server.headersTimeout = 5_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(receiverPort, this.config.host, () => resolve());
    });
    this.server = server;
    const address = server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.announce(`flotilla cdevents receiver at http://${host}:${address.port}`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeIdleConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  projectsFor(event: ArtifactPublished): Promise<MatchedProject[]> {
    return this.outbox.projectsWithRepository(event.artifact.repository);
  }

  firstDelivery(event: ArtifactPublished): Promise<boolean> {
    return this.outbox.firstReceipt(event.source, event.id);
  }

  trigger(projects: MatchedProject[]): void {
    for (const p of projects) this.triggers.sourceChanged(p.id);
  }
}
