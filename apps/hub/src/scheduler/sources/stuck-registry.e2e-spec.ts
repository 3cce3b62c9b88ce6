import { randomBytes } from 'node:crypto';
import { createTempDataDir, createTestDatabase, type TestDatabase } from '../../../test/databases';
import { launch } from '../../../test/hub';
import { addFakeClusters, CountingResolver, eventually, pushTag, RecordingRunner, repositoryUrl, schedulerHubConfig } from '../../../test/scheduler-fixtures';
import type { TagCredentials, TagResolver } from './tag-resolver';

/** Resolves like the real one, except for repositories named `stuck-…`, which never answer until aborted. */
class StuckResolver implements TagResolver {
  readonly real = new CountingResolver();
  stuck = 0;
  aborted = 0;

  async resolve(repository: string, tag: string, credentials?: TagCredentials, signal?: AbortSignal): Promise<string> {
    if (!repository.includes('/stuck-')) return this.real.resolve(repository, tag, credentials);
    this.stuck++;
    return new Promise((_, reject) => {
      signal?.addEventListener('abort', () => {
        this.aborted++;
        reject(signal.reason);
      });
    });
  }
}

// A registry that never answers holds back neither the other Projects, nor
// manual reconciles, nor shutdown.
describe('a stuck registry (PostgreSQL)', () => {
  let db: TestDatabase;
  let tmp: { dir: string; cleanup(): void };

  beforeEach(async () => {
    db = await createTestDatabase();
    tmp = createTempDataDir();
  });

  afterEach(async () => {
    await db.drop();
    tmp.cleanup();
  });

  it('other Projects converge, a manual reconcile runs, and shutdown aborts the stuck resolution', async () => {
    const healthyRepo = `healthy-${randomBytes(4).toString('hex')}`;
    const digest = await pushTag(healthyRepo, 'stable');
    const config = schedulerHubConfig(db.url, tmp.dir, { adminToken: `adm_${randomBytes(16).toString('hex')}`, encryptionKeys: `k1:${randomBytes(32).toString('base64')}` }, { hubId: 'hub-0', sourcePollMs: 60_000 });
    const runner = new RecordingRunner('hub-0');
    const resolver = new StuckResolver();
    const hub = await launch(config, { scheduler: { targetRunner: runner, tagResolver: resolver } });
    let stopped = false;
    try {
      await addFakeClusters(hub, [['c1', 'default']]);
      // the stuck one first, so its resolution is in flight before the healthy one is due
      for (const [name, repo] of [['stuck', `stuck-${randomBytes(4).toString('hex')}`], ['healthy', healthyRepo]]) {
        const res = await hub.call('POST', '/api/v1/projects', { body: { name, namespace: 'apps', source: { repository: repositoryUrl(repo), tag: 'stable' }, targets: { names: ['c1'] } } });
        expect(res.status).toBe(201);
        if (name === 'stuck') await eventually('the stuck resolution to start', async () => (resolver.stuck > 0 ? true : undefined));
      }
      await eventually('the healthy Project Ready', async () => {
        const t = (await hub.call('GET', '/api/v1/projects/healthy/targets/c1')).body;
        return t.phase === 'Ready' && t.lastAppliedRevision === `stable@${digest}` ? true : undefined;
      });
      expect((await hub.call('POST', '/api/v1/projects/healthy/reconcile')).status).toBe(202);
      const manual = await eventually('the manual run', async () => {
        const runs = (await hub.call('GET', '/api/v1/projects/healthy/targets/c1/runs')).body.items;
        return runs.find((r: { trigger: string; result: string }) => r.trigger === 'Manual' && r.result === 'Succeeded');
      });
      expect(manual.revision).toBe(`stable@${digest}`);
      // the stuck Project still waits for its tag, and says so
      const stuck = (await hub.call('GET', '/api/v1/projects/stuck/targets/c1')).body;
      expect(stuck.phase).toBe('Pending');
      expect(resolver.aborted).toBe(0);

      await hub.stop();
      stopped = true;
      expect(resolver.aborted).toBe(resolver.stuck);
      expect(runner.runs.map((r) => r.target)).not.toContain('stuck/c1');
    } finally {
      if (!stopped) await hub.stop();
    }
  });
});
