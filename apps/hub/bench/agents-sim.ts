// The agents of `npm run bench:agents`, in their own process: one gRPC
// connection (channel, mutual TLS) and one stream per agent, speaking the real protocol.
// Reads from stdin `{"digest": "sha256:…", "at": <epoch ms>}` and prints JSON
// lines: when all have connected, and per digest the ack latencies.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { SimulatedAgent, type SimulatedIdentity } from '../test/simulated-agent';

// argv: node, run-ts.mjs, this file, then ours: the hub's addresses (comma-separated: agent i dials address i mod n),
// a JSON line per agent's key and certificate, the agent CA
const [addressList, identityFile, caFile] = process.argv.slice(3);
const addresses = addressList.split(',');
const identities = readFileSync(identityFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as SimulatedIdentity);
const caPem = readFileSync(caFile, 'utf8');
// a real agent reports once it has applied, seconds after the assignment; reports made the instant an
// assignment arrives held up, in this process and in the hub, the very messages being timed
const applyMs = Number(process.env.BENCH_APPLY_MS ?? 2000);
const say = (o: object) => process.stdout.write(`${JSON.stringify(o)}\n`);

async function main(): Promise<void> {
  const started = Date.now();
  const agents = identities.map((_, i) => new SimulatedAgent(addresses[i % addresses.length], caPem));
  if (applyMs > 0) for (const a of agents) a.applyMs = () => applyMs * (0.5 + Math.random());
  let greeted = 0;
  const waiting = new Map<string, { at: number; acked: number[]; count: number }>();
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
          // counted, not recounted: a scan of every agent on each ack cost O(agents²) here and delayed the messages measured
          if (++w.count === agents.length) {
            const sorted = [...w.acked].sort((x, y) => x - y);
            const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
            say({ event: 'acked', digest, p50: q(0.5), p99: q(0.99), max: sorted[sorted.length - 1] });
            waiting.delete(digest);
          }
        }
      }
    };
    // as a real agent does: a stream that fails, or that the hub ends (it cut a silent agent off), is
    // opened again after a jittered pause; once per stream, however it ended
    const open = () => {
      a.connect(identities[i]);
      const stream = a.stream;
      let again = false;
      const reopen = () => {
        if (again || a.stream !== stream) return;
        again = true;
        setTimeout(open, 200 + Math.random() * 800);
      };
      a.onEnded = reopen;
      stream?.on('end', reopen);
    };
    open();
  });
  // alive, as real agents say every 10 s (the hub cuts off agents silent past its timeout); spread over
  // the 10 s as a real fleet's are, not all 10,000 in one burst that holds up both processes
  const SLICES = 100;
  let slice = 0;
  const heartbeats = setInterval(() => {
    for (let i = slice; i < agents.length; i += SLICES) agents[i].send({ body: { $case: 'heartbeat', value: { sentAt: new Date() } } });
    slice = (slice + 1) % SLICES;
  }, 10_000 / SLICES);
  heartbeats.unref();
  const progress = setInterval(() => process.stderr.write(`agents-sim: ${greeted}/${agents.length} greeted, ${agents.filter((a) => a.ended).length} ended\n`), 5000);
  progress.unref();
  for await (const line of createInterface({ input: process.stdin })) {
    const { digest, at } = JSON.parse(line) as { digest: string; at: number };
    waiting.set(digest, { at, acked: new Array(agents.length), count: 0 });
  }
  for (const a of agents) a.close();
}

void main();
