import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

// `npm run bench:agents` at a few agents over two hub replicas: the Go simulator builds from the Go
// code generated off proto/, connects over mutual TLS, holds each digest and
// reports it with a RunReport the hub accepts (the bench waits until every
// Target stored the digest's report). A protocol change that the Go side
// missed fails here rather than in the next measurement. The transport floor
// the hub's memory is set against holds the same agents first.

const ROOT = resolve(__dirname, '../../..');

function runBench(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const bench = spawn(process.execPath, [join(ROOT, 'scripts/run-ts.mjs'), join(__dirname, 'agents.bench.ts')], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    bench.stdout.on('data', (d: Buffer) => (out += d.toString()));
    bench.stderr.on('data', (d: Buffer) => (out += d.toString()));
    bench.on('error', fail);
    bench.on('exit', (code) => done({ code, out }));
  });
}

describe('bench:agents with the Go simulator', () => {
  it('connects every agent, delivers two digests and stores every report', async () => {
    const { code, out } = await runBench({ BENCH_AGENTS: '5', BENCH_REPLICAS: '2', BENCH_DIGESTS: '2', BENCH_APPLY_MS: '0', BENCH_SIM: 'go', BENCH_STORE_TIMEOUT_MS: '60000' });
    expect({ code, tail: out.slice(-3000) }).toEqual({ code: 0, tail: expect.stringContaining('| #2 |') });
    expect(out).toContain('5 agents (Go, grpc-go) over 2 hub replicas');
    expect(out).toMatch(/all connected \(mutual TLS\) and holding their assignment set: \d+ ms/);
    // each replica's own process, read from /proc, holding its share of the agents
    const replicas = [...out.matchAll(/replica (\d) RSS: \d+ MiB before the agents, (\d+) MiB with its (\d+) connected/g)].map((m) => ({ replica: m[1], rssMiB: Number(m[2]), agents: m[3] }));
    expect(replicas.map(({ replica, agents }) => [replica, agents])).toEqual([['0', '3'], ['1', '2']]);
    for (const r of replicas) expect(r.rssMiB).toBeGreaterThan(50);
    // the same agents held by the transport floor first, its RSS read from its own process
    const floor = /transport floor \(.*\): (\d+) MiB before, (\d+) MiB with all connected \(\d+ ms\), -?[\d.]+ KiB per agent; replica 0 -?[\d.]+ KiB per agent/.exec(out);
    expect(Number(floor?.[2])).toBeGreaterThan(50);
  }, 300_000);
});
