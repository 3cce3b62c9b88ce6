import { randomUUID } from 'node:crypto';
import { signBody, toHttpMessage, type CDEvent } from '@flotilla/cdevents';
import { schemaErrors, specExample } from '../../libs/cdevents/src/test-support';
import { shopProjectFiles, type ShopRevision } from './fixtures/projects';
import { SinkProcess } from './support/cdevents-sink';
import { eventually } from './support/eventually';
import type { HubFleet } from './support/hub-fleet';
import type { HubProcess } from './support/hub-process';
import { projectRepository, publishProject, publishWebapp } from './support/publish';
import { createProject, readyOn, target } from './support/shop';
import { spokeSuite } from './support/suite';

// Issue 19: CDEvents in and out, with a real sink process. The source poll
// is an hour long, so every new revision below runs because an `artifact
// published` event reached the receiver.

jest.setTimeout(180_000);

const SECRET = 'e2e-receiver-secret-0123456789';

/** The receiver's URL, as the hub announced it. */
function receiverUrl(hub: HubProcess): Promise<string> {
  return eventually('the hub to announce its CDEvents receiver', async () => /flotilla cdevents receiver at (http:\/\/\S+)/.exec(hub.tail(400))?.[1], { timeoutMs: 30_000 });
}

/** An `artifact published` (the v0.5.1 conformance example) naming `repository` (oci://host/path). */
function published(repository: string, id = randomUUID()): CDEvent {
  const event = specExample('v0.5.1/conformance/artifact_published.json') as unknown as CDEvent;
  event.context.id = id;
  const repo = repository.replace(/^oci:\/\//, '');
  event.subject.id = `pkg:oci/${repo.split('/').at(-1)}?repository_url=${encodeURIComponent(repo)}&tag=latest`;
  return event;
}

async function post(url: string, event: unknown, auth: 'signed' | 'badly-signed' = 'signed'): Promise<{ status: number; body: Record<string, unknown> }> {
  const { headers, body } = toHttpMessage(event as CDEvent, 'binary');
  const res = await fetch(url, { method: 'POST', body, headers: { ...headers, 'x-flotilla-signature': signBody(auth === 'signed' ? SECRET : 'not-the-secret', body) } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface Delivery {
  id: string;
  type: string;
  state: string;
  attempts: number;
  lastError: string | null;
}

describe('CDEvents: artifact published in; environment, service and incident events out', () => {
  let fleet: HubFleet;
  const { registry, ns } = spokeSuite('e2e-cde', {
    timing: { tick: '200ms', leaseTtl: '3s', sourcePoll: '1h' },
    env: { FLOTILLA_EVENTS_PORT: '0', FLOTILLA_EVENTS_SECRETS: SECRET, FLOTILLA_CDEVENTS_RETRY: '200ms', FLOTILLA_CDEVENTS_RETRY_MAX: '1s', FLOTILLA_CDEVENTS_MAX_ATTEMPTS: '1000', FLOTILLA_CDEVENTS_TIMEOUT: '2s' },
    started: (f) => (fleet = f),
  });
  let moduleUrl: string;
  const sinks: SinkProcess[] = [];

  beforeAll(async () => {
    moduleUrl = await publishWebapp(registry);
  });
  afterAll(async () => {
    for (const s of sinks) await s.stop();
  });

  const deliveries = async (project: string): Promise<Delivery[]> => (await fleet.expectCall(200, 'GET', `/api/v1/projects/${project}/deliveries?limit=500`)).body.items;

  it('tells a Project’s whole life, in order, each event valid against the v0.5.1 schemas', () =>
    fleet.guard(async () => {
      const sink = await SinkProcess.create();
      sinks.push(sink);
      await sink.start();
      const receiver = await receiverUrl(fleet.hubs[0]);
      const repo = projectRepository();
      const base: ShopRevision = { moduleUrl, moduleVersion: '1.0.0', namespace: ns, infra: ['db', 'cache'], message: 'v1' };
      const publish = async (rev: ShopRevision) => `latest@${await publishProject(registry, repo, shopProjectFiles(rev))}`;
      const announce = async () => expect((await post(receiver, published(repo))).status).toBe(202);

      const v1 = await publish(base);
      await createProject(fleet, { name: 'life', namespace: ns, repository: repo }, { cdeventsSink: sink.url, cdeventsSinkHeader: { name: 'Authorization', value: 'Bearer sink-token' }, interval: '1h' });
      await readyOn(fleet, 'life', 'spoke-1', v1);
      const shown = (await fleet.expectCall(200, 'GET', '/api/v1/projects/life')).body;
      expect([shown.cdeventsSink, shown.cdeventsSinkHeader, JSON.stringify(shown).includes('sink-token')]).toEqual([sink.url, 'Authorization', false]);

      await fleet.expectCall(200, 'PATCH', '/api/v1/projects/life', { annotations: { team: 'shop' } });
      await eventually('the spec change to be reconciled', async () => ((await target(fleet, 'life', 'spoke-1')).observedGeneration === 2 ? true : undefined), { timeoutMs: 30_000 });

      const v2 = await publish({ ...base, message: 'v2' });
      await announce();
      await readyOn(fleet, 'life', 'spoke-1', v2);

      // the API server refuses replicas: -1; db and cache are applied, web fails
      await publish({ ...base, message: 'v3', replicas: -1 });
      await announce();
      await eventually('the broken revision to fail', async () => ((await target(fleet, 'life', 'spoke-1')).phase === 'Failed' ? true : undefined), { timeoutMs: 30_000 });

      // fixed, and cache leaves the bundle
      const v4 = await publish({ ...base, infra: ['db'], message: 'v4' });
      await announce();
      await readyOn(fleet, 'life', 'spoke-1', v4);

      await fleet.expectCall(202, 'DELETE', '/api/v1/projects/life?instances=delete');
      await eventually('the Project to be gone', async () => ((await fleet.call('GET', '/api/v1/projects/life')).status === 404 ? true : undefined), { timeoutMs: 30_000 });

      const expected = [
        'environment.created',
        'service.deployed db',
        'service.deployed cache',
        'service.deployed web',
        'environment.modified',
        'service.upgraded db',
        'service.upgraded cache',
        'service.upgraded web',
        'service.upgraded db',
        'service.upgraded cache',
        'incident.detected',
        'service.upgraded db',
        'service.upgraded web',
        // the instances that left the bundle are pruned once every component is applied
        'service.removed cache',
        'incident.resolved',
        'service.removed db',
        'service.removed web',
        'environment.deleted',
      ];
      const got = await eventually(
        'every event to reach the sink',
        async () => (sink.events().length >= expected.length ? sink.events() : undefined),
        { timeoutMs: 30_000, observe: async () => ({ received: sink.events().map((e) => e.event.context.type), deliveries: await deliveries('life') }) },
      );
      const describe = (e: (typeof got)[number]['event']) => {
        const kind = e.context.type.replace(/^dev\.cdevents\./, '').replace(/\.0\.3\.0$/, '');
        const instance = (e.customData.flotilla.instance as { name: string } | undefined)?.name;
        return kind.startsWith('service.') ? `${kind} ${instance}` : kind;
      };
      expect(got.map((e) => describe(e.event))).toEqual(expected);
      for (const { event, headers } of got) {
        expect([event.context.type, schemaErrors(event)]).toEqual([event.context.type, []]);
        // binary mode: the CloudEvent attributes are the CDEvent's context
        expect(headers).toMatchObject({ authorization: 'Bearer sink-token', 'ce-specversion': '1.0', 'ce-id': event.context.id, 'ce-type': event.context.type, 'ce-source': '/flotilla/hub' });
        expect(event.customData.flotilla).toMatchObject({ project: { name: 'life', namespace: ns } });
      }
      const detected = got.find((e) => e.event.context.type.startsWith('dev.cdevents.incident.detected'))!.event;
      expect(detected.subject.content).toMatchObject({ environment: { id: `projects/${ns}/life`, source: '/clusters/spoke-1' }, description: expect.stringMatching(/replicas/) });
      expect(detected.customData.flotilla).toMatchObject({ cluster: 'spoke-1', revision: expect.stringMatching(/^latest@sha256:/), error: expect.stringMatching(/replicas/) });
      const deployed = got[1].event;
      expect(deployed.subject).toMatchObject({ id: `spoke-1/${ns}/db`, content: { artifactId: expect.stringMatching(/^pkg:oci\/.+@sha256%3A[0-9a-f]{64}\?repository_url=/) } });
      // the deliveries stay visible after the Project is gone, all delivered once
      const rows = await deliveries('life');
      expect(rows.map((r) => [r.state, r.attempts])).toEqual(expected.map(() => ['delivered', 1]));
      expect(new Set(rows.map((r) => r.id))).toEqual(new Set(got.map((e) => e.event.context.id)));
    })());

  it('delivers every event once the sink is back, across a SIGKILL of the hub, with stable ids', () =>
    fleet.guard(async () => {
      const sink = await SinkProcess.create(); // not started: the port refuses connections
      sinks.push(sink);
      const repo = projectRepository();
      const v1 = await publishProject(registry, repo, shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace: ns, infra: ['db'], message: 'down' }));
      await createProject(fleet, { name: 'outage', namespace: ns, repository: repo }, { cdeventsSink: sink.url, interval: '1h' });
      await readyOn(fleet, 'outage', 'spoke-1', `latest@${v1}`);
      // retried at least twice while the sink is down
      const before = await eventually(
        'the first event to be retried',
        async () => {
          const rows = await deliveries('outage');
          return rows.length === 3 && rows.at(-1)!.attempts >= 2 ? rows : undefined;
        },
        { timeoutMs: 30_000, observe: () => deliveries('outage') },
      );
      expect(before.every((r) => r.state === 'pending')).toBe(true);
      expect(before.at(-1)!.lastError).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/events: /);

      await fleet.hubs[0].kill();
      await fleet.restart(fleet.hubs[0].id);
      // the new process keeps retrying what the killed one left
      const attempts = before.at(-1)!.attempts;
      await eventually('the new hub to retry', async () => ((await deliveries('outage')).at(-1)!.attempts > attempts ? true : undefined), { timeoutMs: 30_000 });

      await sink.start();
      const rows = await eventually(
        'every event to be delivered',
        async () => {
          const r = await deliveries('outage');
          return r.every((d) => d.state === 'delivered') ? r : undefined;
        },
        { timeoutMs: 30_000, observe: () => deliveries('outage') },
      );
      const ids = rows.map((r) => r.id).reverse(); // oldest first
      const firstArrivals = [...new Set(sink.events().map((e) => e.event.context.id))];
      expect(firstArrivals).toEqual(ids);
      expect(sink.events().map((e) => e.event.context.type.replace(/^dev\.cdevents\.|\.0\.3\.0$/g, ''))).toEqual(['environment.created', 'service.deployed', 'service.deployed']);
      const metrics = (await fleet.expectCall(200, 'GET', '/metrics')).text;
      expect(metrics).toMatch(/flotilla_cdevents_deliveries_total\{result="delivered"\} 3/);
      // the instances go, so the next test's Project may own them
      await fleet.expectCall(202, 'DELETE', '/api/v1/projects/outage?instances=delete');
      await eventually('the Project to be gone', async () => ((await fleet.call('GET', '/api/v1/projects/outage')).status === 404 ? true : undefined), { timeoutMs: 30_000 });
    })());

  it('receives: refuses a bad signature, a wrong type and an unknown repository, takes a replayed id once', () =>
    fleet.guard(async () => {
      const receiver = await receiverUrl(fleet.hubs[0]);
      const repo = projectRepository();
      const v1 = await publishProject(registry, repo, shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace: ns, infra: ['db'], message: 'in' }));
      await createProject(fleet, { name: 'inbound', namespace: ns, repository: repo }, { interval: '1h' });
      await readyOn(fleet, 'inbound', 'spoke-1', `latest@${v1}`);
      const v2 = `latest@${await publishProject(registry, repo, shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace: ns, infra: ['db'], message: 'in 2' }))}`;

      const event = published(repo);
      expect(await post(receiver, event, 'badly-signed')).toEqual({ status: 401, body: { error: 'Unauthorized', message: 'bad signature or token' } });
      const deployed = specExample('v0.5.1/conformance/service_deployed.json');
      expect((await post(receiver, deployed)).status).toBe(422);
      expect(await post(receiver, published('oci://127.0.0.1:1/nobody/here'))).toMatchObject({ status: 422, body: { message: 'no Project has repository 127.0.0.1:1/nobody/here as its source; nothing to reconcile' } });
      // none of these moved the Project: still on v1 (the poll is an hour away)
      expect((await target(fleet, 'inbound', 'spoke-1')).lastAppliedRevision).toBe(`latest@${v1}`);

      expect(await post(receiver, event)).toEqual({ status: 202, body: { projects: ['inbound'], message: expect.stringContaining('1 Project(s) resolve') } });
      await readyOn(fleet, 'inbound', 'spoke-1', v2);
      expect(await post(receiver, event)).toMatchObject({ status: 200, body: { duplicate: true } });
      const metrics = (await fleet.expectCall(200, 'GET', '/metrics')).text;
      for (const outcome of ['accepted', 'duplicate', 'unauthorized', 'rejected']) expect(metrics).toMatch(new RegExp(`flotilla_cdevents_received_total\\{outcome="${outcome}"\\} [1-9]`));
    })());
});
