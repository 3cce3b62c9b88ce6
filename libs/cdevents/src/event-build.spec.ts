import { buildCdevent } from './event-build';
import { schemaErrors, specExample } from './test-support';
import { type EventFacts, OUTBOUND_KINDS } from './types';

const facts = (over: Partial<EventFacts> = {}): EventFacts => ({
  id: '6a4b8c1e-2f0d-4d55-9a31-000000000001',
  time: new Date('2026-03-04T05:06:07.000Z'),
  source: '/flotilla/hub',
  kind: 'service.deployed',
  project: { name: 'shop', namespace: 'apps' },
  repository: 'oci://registry.example:5000/acme/shop',
  cluster: 'eu-1',
  revision: 'latest@sha256:0b31b1c02ff458ad9b7b81cbdf8f028bd54699fa151f221d1e8de6817db93427',
  instance: { name: 'web', namespace: 'apps', component: 'frontend' },
  reason: 'InstanceApplied',
  message: 'instance apps/web applied',
  ...over,
});

describe('buildCdevent', () => {
  it('accepts the spec conformance examples it validates with (the validator itself is sound)', () => {
    for (const name of ['environment_created', 'environment_modified', 'environment_deleted', 'service_deployed', 'service_upgraded', 'service_rolledback', 'service_removed', 'incident_detected', 'incident_resolved']) {
      expect([name, schemaErrors(specExample(`v0.5.1/conformance/${name}.json`) as never)]).toEqual([name, []]);
    }
    const broken = specExample('v0.5.1/conformance/service_deployed.json') as { subject: { content: Record<string, unknown> } };
    delete broken.subject.content.artifactId;
    expect(schemaErrors(broken as never)).toEqual([expect.stringContaining("must have required property 'artifactId'")]);
  });

  it.each(OUTBOUND_KINDS)('builds %s valid against the v0.5.1 schema', (kind) => {
    const event = buildCdevent(facts({ kind, error: kind.startsWith('incident') ? 'apply failed: deployments.apps "web" is forbidden' : undefined }));
    expect(event.context).toMatchObject({ specversion: '0.5.1', type: `dev.cdevents.${kind}.0.3.0`, id: facts().id, source: '/flotilla/hub', timestamp: '2026-03-04T05:06:07.000Z' });
    expect(schemaErrors(event)).toEqual([]);
  });

  it('names the cluster, Project, revision, instance and error in subject and custom data', () => {
    const deployed = buildCdevent(facts());
    expect(deployed.subject).toEqual({
      id: 'eu-1/apps/web',
      source: '/flotilla/hub',
      content: {
        environment: { id: 'projects/apps/shop', source: '/clusters/eu-1' },
        artifactId: 'pkg:oci/shop@sha256%3A0b31b1c02ff458ad9b7b81cbdf8f028bd54699fa151f221d1e8de6817db93427?repository_url=registry.example%3A5000%2Facme%2Fshop&tag=latest',
      },
    });
    const incident = buildCdevent(facts({ kind: 'incident.detected', instance: undefined, error: 'cluster unreachable' }));
    expect(incident.subject).toMatchObject({ id: 'incidents/apps/shop/eu-1', content: { description: 'cluster unreachable', environment: { id: 'projects/apps/shop' } } });
    expect(incident.customData).toEqual({
      flotilla: { project: { name: 'shop', namespace: 'apps' }, cluster: 'eu-1', repository: facts().repository, revision: facts().revision, reason: 'InstanceApplied', message: 'instance apps/web applied', error: 'cluster unreachable' },
    });
    expect(buildCdevent(facts({ kind: 'incident.resolved', instance: undefined })).subject.id).toBe(incident.subject.id);
    const env = buildCdevent(facts({ kind: 'environment.created', cluster: undefined, instance: undefined, revision: undefined }));
    expect(env.subject).toEqual({ id: 'projects/apps/shop', source: '/flotilla/hub', content: { name: 'shop' } });
  });

  it('still writes a valid service event when the revision is unknown', () => {
    const event = buildCdevent(facts({ revision: undefined }));
    expect(schemaErrors(event)).toEqual([]);
    expect(event.subject.content.artifactId).toBe('pkg:generic/shop');
  });

  it('carries a rollout wave change as custom data of a valid environment.modified', () => {
    const wave = { index: 1, groups: ['prod'], state: 'done', previous: 'soaking', total: 2, healthy: 2, progressing: 0, pending: 0, failed: 0 };
    const event = buildCdevent(facts({ kind: 'environment.modified', cluster: undefined, instance: undefined, reason: 'WaveDone', message: 'wave 1 (prod) is done', wave }));
    expect(schemaErrors(event)).toEqual([]);
    expect(event.subject).toEqual({ id: 'projects/apps/shop', source: '/flotilla/hub', content: { name: 'shop' } });
    expect(event.customData).toEqual({ flotilla: { project: { name: 'shop', namespace: 'apps' }, repository: facts().repository, revision: facts().revision, reason: 'WaveDone', message: 'wave 1 (prod) is done', wave } });
  });
});
