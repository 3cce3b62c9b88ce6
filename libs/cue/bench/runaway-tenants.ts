// Part of npm run bench:cue: a healthy tenant's module build alone, then
// beside four tenants whose CUE runs away (each call until the timeout),
// with tenant keys (the fair pool) and without (one shared queue, as before).
import { CueEngine, type EvaluateRequest } from '@flotilla/cue';
import { moduleBuildRequest, ms } from './module-request';

const TIMEOUT_MS = 2_000;
const RUNAWAY_TENANTS = 4;
const SAMPLES = 6;

// Combinatorial: 400 million pairs, small in memory, so it ends at the timeout.
const runaway: EvaluateRequest = {
  files: { 'a.cue': 'package main\nimport "list"\nn: len([for a in list.Range(0, 20000, 1) for b in list.Range(0, 20000, 1) if a*b < 0 {a}])\n' },
  exports: [{ path: 'n' }],
};

async function healthyLatencies(engine: CueEngine, req: EvaluateRequest, tenant: string | undefined): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t = performance.now();
    await engine.evaluate(req, { tenant });
    out.push(performance.now() - t);
  }
  return out.sort((a, b) => a - b);
}

/** Healthy latencies while RUNAWAY_TENANTS tenants each keep two runaway calls queued. */
async function besideRunaways(engine: CueEngine, req: EvaluateRequest, withTenants: boolean): Promise<{ latencies: number[]; timeouts: number }> {
  let running = true;
  let timeouts = 0;
  const loops = Array.from({ length: RUNAWAY_TENANTS * 2 }, async (_, i) => {
    while (running) {
      await engine.evaluate(runaway, { tenant: withTenants ? `runaway-${i % RUNAWAY_TENANTS}` : undefined }).catch(() => timeouts++);
    }
  });
  // Let the runaway calls fill the pool and its queue first.
  await new Promise((r) => setTimeout(r, 500));
  const latencies = await healthyLatencies(engine, req, withTenants ? 'healthy' : undefined);
  running = false;
  await Promise.all(loops);
  return { latencies, timeouts };
}

const median = (xs: number[]) => xs[Math.floor(xs.length / 2)];

export async function runawayTenantsScenario(poolSize: number): Promise<void> {
  const engine = await CueEngine.start({ poolSize, timeoutMs: TIMEOUT_MS });
  try {
    const req = await moduleBuildRequest(engine);
    for (let i = 0; i < 4; i++) await engine.evaluate(req); // warm both workers' code
    const alone = await healthyLatencies(engine, req, 'healthy');
    console.log(`healthy module build alone (median of ${SAMPLES}):     ${ms(median(alone))}  (max ${ms(alone[alone.length - 1])})`);
    for (const withTenants of [true, false]) {
      const { latencies, timeouts } = await besideRunaways(engine, req, withTenants);
      const label = withTenants ? 'beside 4 runaway tenants, fair pool:   ' : 'same, without tenant keys (one queue): ';
      console.log(
        `${label}${ms(median(latencies))}  (max ${ms(latencies[latencies.length - 1])}; ×${(median(latencies) / median(alone)).toFixed(1)} the alone median; ${timeouts} runaway calls stopped at ${ms(TIMEOUT_MS)})`,
      );
    }
  } finally {
    await engine.close();
  }
}
