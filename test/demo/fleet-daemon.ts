import { readState, writeState } from './demo-state';
import { PROJECT, startFleet } from './fleet-start';

// The demo's supervisor: started detached by `npm run demo` (its own session,
// so it and every service it starts share one process group), it starts the
// fleet, records how to reach it in state.json and stays, holding the
// services, until SIGTERM (`npm run demo -- down`) stops them. Its output
// goes to demo.log, which `npm run demo` relays.

function say(line: string): void {
  process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
}

async function main(dir: string): Promise<void> {
  // `npm run demo` wrote state.json (phase starting) right after starting this process
  const base = readState(dir) ?? { pid: process.pid, startedAt: new Date().toISOString(), phase: 'starting' as const };
  let stopping = false;
  let stopFleet: (() => Promise<void>) | undefined;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    // still starting: main stops what it started once the start settles
    if (!stopFleet) return;
    say('stopping the fleet');
    void stopFleet().then(() => {
      say('stopped');
      process.exit(0);
    });
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  process.on('SIGHUP', () => undefined); // a closed terminal is no reason to stop
  try {
    const fleet = await startFleet(dir, say);
    stopFleet = fleet.stop;
    if (stopping) {
      await fleet.stop();
      process.exit(0);
    }
    writeState(dir, { ...base, phase: 'ready', hubUrl: fleet.hubUrl, adminToken: fleet.adminToken, project: PROJECT, clusters: fleet.clusters });
    say('fleet started');
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    say(`failed: ${message}`);
    writeState(dir, { ...base, phase: 'failed', error: message });
    process.exit(1);
  }
}

const dir = process.argv[2];
if (!dir) {
  console.error('usage: fleet-daemon.js <demo directory> (started by `npm run demo`)');
  process.exit(2);
}
void main(dir);
