// The agent runs the hub's CDEvents receiver (libs/cdevents) on its own port:
// an `artifact published` naming a Project's repository makes that Project
// resolve its tag now instead of at its next poll.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ArtifactPublished, cdeventsReceiver, defaultReceiverLimits, type MatchedProject, type ReceiverBackend } from '@flotilla/cdevents';
import type { ProjectController } from '../controller/project-controller';
import type { Logger } from '../logging/logger';

/** Replays remembered (by source and id); older ones are forgotten first. */
const REMEMBERED_RECEIPTS = 10_000;

class AgentReceiverBackend implements ReceiverBackend {
  private readonly receipts = new Set<string>();

  constructor(private readonly controller: ProjectController) {}

  async projectsFor(event: ArtifactPublished): Promise<MatchedProject[]> {
    return this.controller.projectsWithRepository(event.artifact.repository).map((key) => ({ id: key, name: key }));
  }

  async firstDelivery(event: ArtifactPublished): Promise<boolean> {
    const key = `${event.source}\u0000${event.id}`;
    if (this.receipts.has(key)) return false;
    this.receipts.add(key);
    // a Set iterates in insertion order: the first is the oldest
    if (this.receipts.size > REMEMBERED_RECEIPTS) this.receipts.delete(this.receipts.values().next().value!);
    return true;
  }

  trigger(projects: MatchedProject[]): void {
    for (const p of projects) this.controller.pollNow(p.id);
  }
}

export interface EventsServer {
  url: string;
  close(): Promise<void>;
}

export async function startCdeventsReceiver(options: { host: string; port: number; secrets: string[] }, controller: ProjectController, log: Logger): Promise<EventsServer> {
  const server: Server = createServer(
    cdeventsReceiver({
      secrets: options.secrets,
      ...defaultReceiverLimits(),
      backend: new AgentReceiverBackend(controller),
      observe: (outcome, d) => log.info('CDEvent received', { outcome, status: d.status, message: d.message, ...(d.event ? { event: d.event.id, repository: d.event.artifact.repository } : {}) }),
    }),
  );
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeIdleConnections();
        server.close(() => resolve());
      }),
  };
}
