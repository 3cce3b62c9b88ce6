import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { appliedInstance, buildRunReport, formatRevision, InstanceApplyError, removedInstance, type InstanceResult, type RunReport, type RunResult } from '@flotilla/engine';
import { RegistryClient } from '@flotilla/oci';
import { harnessEnv } from '../../../test/harness/env';
import { defaultHubConfig, defaultSchedulerConfig, type HubConfig, type SchedulerConfig, defaultAgentServerConfig } from '../src/config/hub-config';
import { defaultEgressConfig } from '../src/config/egress-config';
import type { TestHub } from './hub';
import { OciTagResolver, type TagCredentials, type TagResolver } from '../src/scheduler/sources/tag-resolver';
export type { TagResolver } from '../src/scheduler/sources/tag-resolver';
import type { TargetRunHooks, TargetRunInput, TargetRunner } from '../src/scheduler/target-runner';

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

  async reconcile(input: TargetRunInput & { digest: string }, hooks: TargetRunHooks): Promise<RunReport> {
    return this.run(input, 'reconcile', hooks);
  }

  async deleteInstances(input: TargetRunInput, hooks: TargetRunHooks): Promise<RunReport> {
    return this.run(input, 'delete', hooks);
  }

  /** A run result as the engine would return it, turned into its report by the engine itself. */
  private async run(input: TargetRunInput, kind: RecordedRun['kind'], hooks: TargetRunHooks): Promise<RunReport> {
    const startedAt = new Date();
    const start = startedAt.getTime();
    await sleep(this.delayMs, undefined, { signal: input.signal }).catch(() => undefined);
    const fails = this.failing.has(input.cluster.name) || this.failing.has(`${input.cluster.name}@${input.digest}`);
    const revision = input.digest ? formatRevision(input.project.source.tag, input.digest) : undefined;
    const error = fails ? new InstanceApplyError('app', 'web', { cause: new Error(`apply failed on ${input.cluster.name}`) }) : undefined;
    const instance: InstanceResult = {
      name: 'web',
      namespace: input.project.namespace,
      component: 'app',
      bundle: 'app',
      module: { name: 'oci://example/web', repository: 'oci://example/web', version: '1.0.0', digest: 'sha256:0' },
      changes: [
        { subject: 'Deployment/web/web', action: fails ? 'unchanged' : 'configured', ref: { group: 'apps', version: 'v1', kind: 'Deployment', namespace: 'web', name: 'web' } },
        { subject: 'Service/web/web', action: 'unchanged', ref: { group: '', version: 'v1', kind: 'Service', namespace: 'web', name: 'web' } },
      ],
      counts: { created: 0, configured: fails ? 0 : 1, unchanged: fails ? 2 : 1, deleted: 0, skipped: 0 },
      ready: !fails,
      durationMs: Date.now() - start,
      ...(error ? { error } : {}),
    };
    input.onKubeRequest({ method: 'PATCH', pathTemplate: '/apis/apps/v1/namespaces/{namespace}/deployments/{name}', statusCode: fails ? 500 : 200, durationMs: 1 });
    const deleted = { name: 'web', namespace: input.project.namespace, component: 'app', changes: [], counts: { created: 0, configured: 0, unchanged: 0, deleted: 3, skipped: 0 }, durationMs: 1 };
    await hooks.instanceApplied(kind === 'delete' ? removedInstance(deleted, 'deleted') : appliedInstance(instance), revision);
    this.runs.push({ target: `${input.project.name}/${input.cluster.name}`, owner: this.owner, digest: input.digest, start, end: Date.now(), kind, ok: !fails });
    const result: RunResult = {
      project: { name: input.project.name, namespace: input.project.namespace },
      cluster: { name: input.cluster.name, group: input.cluster.group },
      source: input.project.source.repository,
      tag: input.project.source.tag,
      ...(input.digest ? { digest: input.digest, revision } : {}),
      ok: !fails,
      startedAt,
      finishedAt: new Date(),
      durationMs: Date.now() - start,
      timings: { resolveMs: 0, fetchMs: 0, loadMs: 0, componentsMs: Date.now() - start, pruneMs: 0 },
      components: kind === 'delete' ? [] : [{ name: 'app', status: fails ? 'Failed' : 'Succeeded', bundle: 'app', instanceNames: [{ name: 'web', namespace: input.project.namespace }], instances: [instance], durationMs: 1, ...(error ? { error } : {}) }],
      pruned: kind === 'delete' ? [deleted] : [],
      namespaces: kind === 'delete' ? [] : [input.project.namespace],
      warnings: [],
      ...(error ? { error } : {}),
    };
    return buildRunReport(result, input.schedule, kind);
  }
}

/** A tag that points where the test says: `digest`, or no digest yet (the resolve fails). */
export class SettableResolver implements TagResolver {
  digest = '';
  async resolve(): Promise<string> {
    if (!this.digest) throw new Error('no digest yet');
    return this.digest;
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
  return pushImage(client, { registry: options.auth ? env.registryAuth.host : env.registry.host, repository: repo }, tag, content);
}

/** Pushes a small OCI image (an empty config and one layer of `content`) as `ref:tag`; returns the manifest digest. */
export async function pushImage(client: RegistryClient, ref: { registry: string; repository: string }, tag: string, content: string): Promise<string> {
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

/** Settings of a hub replica on a shared test database, as the scheduler suites start them. */
export function schedulerHubConfig(databaseUrl: string, dataDir: string, secrets: { adminToken: string; encryptionKeys: string }, scheduler: Partial<SchedulerConfig> = {}): HubConfig {
  return {
    ...defaultHubConfig(),
    host: '127.0.0.1',
    port: 0,
    dataDir,
    databaseUrl,
    logLevel: 'warn',
    ...secrets,
    scheduler: fastScheduler(scheduler),
    agents: { ...defaultAgentServerConfig('127.0.0.1'), port: 0 },
    // the harness's services (and the fake clusters) are on loopback
    egress: { ...defaultEgressConfig(), allowLoopback: true },
  };
}

/** Registers push clusters that point nowhere (the in-process runners never dial them). */
export async function addFakeClusters(hub: Pick<TestHub, 'call'>, clusters: Array<[string, string]>): Promise<void> {
  for (const [name, group] of clusters) {
    const res = await hub.call('POST', '/api/v1/clusters', {
      body: { name, group, mode: 'push', endpoint: { server: 'https://127.0.0.1:1' }, credentials: { token: `token-${name}` } },
    });
    if (res.status !== 201) throw new Error(`registering cluster ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  }
}
