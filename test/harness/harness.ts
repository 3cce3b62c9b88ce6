import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres } from './postgres';
import { startRegistry } from './registry';
import type { HarnessEnv, RunningService } from './types';

export type ServiceName = 'postgres' | 'registry' | 'kube';
export const ALL_SERVICES: ServiceName[] = ['postgres', 'registry', 'kube'];

export interface Harness {
  env: Partial<HarnessEnv>;
  workDir: string;
  logFiles: string[];
  /** one line per service worth printing at start, e.g. the cluster's start time and memory */
  report: string[];
  stop(options?: { keepWorkDir?: boolean }): Promise<void>;
}

/** Parses a comma-separated service list such as `postgres,registry`. */
export function parseServices(spec: string | undefined): ServiceName[] {
  if (!spec || spec === 'all') return ALL_SERVICES;
  const names = spec.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !ALL_SERVICES.includes(n as ServiceName));
  if (unknown.length) throw new Error(`unknown harness service(s) ${unknown.join(', ')}; known: ${ALL_SERVICES.join(', ')}`);
  return names as ServiceName[];
}

/** Starts the requested real services side by side in one temp work dir. */
export async function startHarness(services: ServiceName[] = ALL_SERVICES): Promise<Harness> {
  const workDir = mkdtempSync(join(tmpdir(), 'flotilla-harness-'));
  const running: RunningService<unknown>[] = [];
  const env: Partial<HarnessEnv> = {};
  const report: string[] = [];
  const stop = async (options: { keepWorkDir?: boolean } = {}) => {
    await Promise.allSettled(running.map((s) => s.stop()));
    if (!options.keepWorkDir) rmSync(workDir, { recursive: true, force: true });
  };

  const starters: Promise<void>[] = [];
  const track = <T>(p: Promise<RunningService<T>>, assign: (endpoint: T) => void) =>
    starters.push(p.then((s) => { running.push(s); assign(s.endpoint); }));

  if (services.includes('postgres')) track(startPostgres(workDir), (e) => (env.postgres = e));
  if (services.includes('registry')) {
    track(startRegistry(workDir, 'registry'), (e) => (env.registry = e));
    track(
      startRegistry(workDir, 'registry-auth', { basicAuth: { username: 'flotilla', password: 'registry-secret' } }),
      (e) => (env.registryAuth = e as HarnessEnv['registryAuth']),
    );
  }
  if (services.includes('kube')) {
    // Loaded lazily: building the API server is only needed when kube is asked for.
    const { describeKube, startKube } = await import('./kube');
    track(
      startKube(workDir).then((kube) => {
        report.push(describeKube('kube', kube));
        return kube;
      }),
      (e) => (env.kube = e),
    );
  }

  const results = await Promise.allSettled(starters);
  const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failures.length) {
    await stop({ keepWorkDir: true });
    const reasons = failures.map((f) => (f.reason instanceof Error ? f.reason.message : String(f.reason)));
    throw new Error(`harness failed to start (logs kept in ${workDir}):\n${reasons.join('\n\n')}`);
  }
  return { env, workDir, logFiles: running.map((s) => s.logFile), report, stop };
}
