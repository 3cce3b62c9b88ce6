import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from '../../../test/harness/ports';
import type { SimulatorLauncher } from './agents-simulator';
import { residentBytes } from './cpu-times';

const ROOT = resolve(__dirname, '../../..');

export interface TransportFloor {
  /** RSS of the floor server before the agents, and with all of them connected and greeted */
  rssBefore: number;
  rssConnected: number;
  connectMs: number;
}

/**
 * Connects the simulated agents to the transport floor (transport-floor.ts)
 * instead of a hub, and reads the floor's RSS before and with all connected:
 * the reference the hub's own figure is set against, measured in the same run.
 */
export async function measureTransportFloor(opts: { simulator: SimulatorLauncher; caCertFile: string; caKeyFile: string }): Promise<TransportFloor> {
  const port = await freePort();
  const server = spawn(process.execPath, [join(ROOT, 'scripts/run-ts.mjs'), join(__dirname, 'transport-floor.ts'), String(port), opts.caCertFile, opts.caKeyFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((done) => server.on('exit', () => done()));
  try {
    await new Promise<void>((listening, fail) => {
      createInterface({ input: server.stdout! }).on('line', (l) => l.includes('listening') && listening());
      void exited.then(() => fail(new Error('the transport floor exited before it listened')));
    });
    const rssBefore = residentBytes(server.pid!);
    const sim = opts.simulator(`127.0.0.1:${port}`);
    try {
      const connected = await sim.next('connected');
      return { rssBefore, rssConnected: residentBytes(server.pid!), connectMs: connected.ms as number };
    } finally {
      await sim.stop();
    }
  } finally {
    server.kill('SIGTERM');
    await exited;
  }
}
