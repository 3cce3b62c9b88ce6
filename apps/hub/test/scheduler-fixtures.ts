import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { RegistryClient } from '@flotilla/oci';
import { harnessEnv } from '../../../test/harness/env';
import { defaultSchedulerConfig, type SchedulerConfig } from '../src/config/hub-config';
import { OciTagResolver, type TagCredentials, type TagResolver } from '../src/scheduler/tag-resolver';
import type { TargetRunHooks, TargetRunInput, TargetRunner, TargetRunResult } from '../src/scheduler/target-runner';

/** Fast settings for tests: short ticks, leases and backoff without jitter. */
export function fastScheduler(overrides: Partial<SchedulerConfig> = {}): SchedulerConfig {
  return {
    ...defaultSchedulerConfig(),
    tickMs: 50,
    leaseTtlMs: 1500,
    concurrency: 2,
    sourcePollMs: 300,
    shutdownGraceMs: 2000,
    backoff: { initialMs: 200, factor: 2, maxMs: 1600, jitter: 0 },
    ...overrides,
  };
}

export interface RecordedRun {
  target: string;
  owner: string;
  digest: string | null;
  start: number;
  end: number;
  kind: 'reconcile' | 'delete';
  ok: boolean;
}

/**
 * An in-process TargetRunner: a pure function of its input (project, cluster,
 * digest) plus the rules a test sets. It records when each run started and
 * ended, so tests can prove no Target ran twice at once.
 */
export class RecordingRunner implements TargetRunner {
  readonly runs: RecordedRun[] = [];
  /** `cluster` or `cluster@digest` keys that fail (retryable) */
  readonly failing = new Set<string>();
  delayMs = 60;

  constructor(readonly owner: string) {}

  async reconcile(input: TargetRunInput, hooks: TargetRunHooks): Promise<TargetRunResult> {
    return this.run(input, 'reconcile', hooks);
  }

  async deleteInstances(input: Omit<TargetRunInput, 'digest'> & { digest: string | null }, hooks: TargetRunHooks): Promise<TargetRunResult> {
    return this.run(input, 'delete', hooks);
  }

  private async run(input: Omit<TargetRunInput, 'digest'> & { digest: string | null }, kind: RecordedRun['kind'], hooks: TargetRunHooks): Promise<TargetRunResult> {
    const start = Date.now();
    await sleep(this.delayMs, undefined, { signal: input.signal }).catch(() => undefined);
    const fails = this.failing.has(input.cluster.name) || this.failing.has(`${input.cluster.name}@${input.digest}`);
    const revision = `${input.project.source.tag}@${input.digest}`;
    const instance = {
      name: 'web',
      namespace: input.project.namespace,
      component: 'app',
      action: kind === 'delete' ? ('deleted' as const) : ('applied' as const),
      module: { name: 'oci://example/web', version: '1.0.0' },
      ready: !fails,
      durationMs: Date.now() - start,
      created: 0,
      configured: fails ? 0 : 1,
      unchanged: 2,
      deleted: kind === 'delete' ? 3 : 0,
      objects: ['Deployment/web/web'],
      ...(fails ? { error: `apply failed on ${input.cluster.name}` } : {}),
    };
    input.onKubeRequest({ method: 'PATCH', pathTemplate: '/apis/apps/v1/namespaces/{namespace}/deployments/{name}', statusCode: fails ? 500 : 200, durationMs: 1 });
    await hooks.instanceApplied(instance);
    this.runs.push({ target: `${input.project.name}/${input.cluster.name}`, owner: this.owner, digest: input.digest, start, end: Date.now(), kind, ok: !fails });
    return {
      ok: !fails,
      revision,
      instances: [instance],
      components: [{ name: 'app', instances: [{ name: 'web', namespace: input.project.namespace }] }],
      namespaces: [input.project.namespace],
      ...(fails ? { error: { reason: 'ApplyFailed', message: `apply failed on ${input.cluster.name}`, retryable: true } } : {}),
    };
  }
}

/** The real libs/oci resolver, counting its registry round trips per repository:tag. */
export class CountingResolver implements TagResolver {
  readonly counts = new Map<string, number>();
  private readonly real = new OciTagResolver();

  async resolve(repository: string, tag: string, credentials?: TagCredentials): Promise<string> {
    const key = `${repository}:${tag}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    return this.real.resolve(repository, tag, credentials);
  }

  total(): number {
    return [...this.counts.values()].reduce((a, b) => a + b, 0);
  }
}

/** Pushes a small OCI image under `repo:tag` to the harness registry; returns the manifest digest. */
export async function pushTag(repo: string, tag: string, content = randomBytes(8).toString('hex'), options: { auth?: boolean } = {}): Promise<string> {
  const env = harnessEnv();
  const client = options.auth ? new RegistryClient({ credentials: { kind: 'basic', username: env.registryAuth.username, password: env.registryAuth.password } }) : new RegistryClient();
  const ref = { registry: options.auth ? env.registryAuth.host : env.registry.host, repository: repo };
  const config = await client.pushBlob(ref, Buffer.from('{}'));
  const layer = await client.pushBlob(ref, Buffer.from(content));
  const manifest = {
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: config.digest, size: config.size },
    layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: layer.digest, size: layer.size }],
  };
  return client.putManifest({ ...ref, tag }, Buffer.from(JSON.stringify(manifest)), manifest.mediaType);
}

export function repositoryUrl(repo: string): string {
  return `oci://${harnessEnv().registry.host}/${repo}`;
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await sleep(50);
  }
}

/** Pairs of runs of one target whose intervals overlap. */
export function overlaps(runs: Array<{ target: string; start: number; end: number }>): string[] {
  const out: string[] = [];
  const byTarget = new Map<string, Array<{ start: number; end: number }>>();
  for (const r of runs) byTarget.set(r.target, [...(byTarget.get(r.target) ?? []), r]);
  for (const [target, list] of byTarget) {
    const sorted = [...list].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) if (sorted[i].start < sorted[i - 1].end) out.push(`${target}: ${sorted[i - 1].start}-${sorted[i - 1].end} and ${sorted[i].start}-${sorted[i].end}`);
  }
  return out;
}
