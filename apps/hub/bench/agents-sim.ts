// The agents of `npm run bench:agents`, in their own process: one gRPC
// connection (channel, mutual TLS) and one stream per agent, speaking the real protocol.
// Reads from stdin `{"digest": "sha256:…", "at": <epoch ms>}` and prints JSON
// lines: when all have connected, and per digest the ack latencies.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { SimulatedAgent, type SimulatedIdentity } from '../test/simulated-agent';

// argv: node, run-ts.mjs, this file, then ours: the hub, a JSON line per agent's key and certificate, the agent CA
const [address, identityFile, caFile] = process.argv.slice(3);
const identities = readFileSync(identityFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as SimulatedIdentity);
const caPem = readFileSync(caFile, 'utf8');
const say = (o: object) => process.stdout.write(`${JSON.stringify(o)}\n`);

async function main(): Promise<void> {
  const started = Date.now();
  const agents = identities.map(() => new SimulatedAgent(address, caPem));
  let greeted = 0;
  const waiting = new Map<string, { at: number; acked: number[] }>();
  agents.forEach((a, i) => {
    let first = true;
    a.onMessage = () => {
      if (first && a.received.some((m) => m.body?.$case === 'assignments')) {
        first = false;
        if (++greeted === agents.length) say({ event: 'connected', agents: greeted, ms: Date.now() - started });
      }
      for (const [digest, w] of waiting) {
        if (w.acked[i] === undefined && [...a.assignments.values()].some((x) => x.digest === digest)) {
          w.acked[i] = Date.now() - w.at;
          if (w.acked.filter((v) => v !== undefined).length === agents.length) {
            const sorted = [...w.acked].sort((x, y) => x - y);
            const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
            say({ event: 'acked', digest, p50: q(0.5), p99: q(0.99), max: sorted[sorted.length - 1] });
            waiting.delete(digest);
          }
        }
      }
    };
    // as a real agent does: a stream that fails is opened again after a jittered pause
    a.onEnded = () => setTimeout(() => a.connect(identities[i]), 200 + Math.random() * 800);
    a.connect(identities[i]);
  });
  // alive, as real agents say every 10 s (the hub cuts off agents silent past its timeout)
  const heartbeats = setInterval(() => {
    for (const a of agents) a.send({ body: { $case: 'heartbeat', value: { sentAt: new Date() } } });
  }, 10_000);
  heartbeats.unref();
  const progress = setInterval(() => process.stderr.write(`agents-sim: ${greeted}/${agents.length} greeted, ${agents.filter((a) => a.ended).length} ended\n`), 5000);
  progress.unref();
  for await (const line of createInterface({ input: process.stdin })) {
    const { digest, at } = JSON.parse(line) as { digest: string; at: number };
    waiting.set(digest, { at, acked: new Array(agents.length) });
  }
  for (const a of agents) a.close();
}

void main();
