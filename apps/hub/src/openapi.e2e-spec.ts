import { startTestHub, type TestHub } from '../test/hub';

describe('OpenAPI', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub('postgres');
  });
  afterAll(() => hub?.close());

  it('describes every API route, the bearer scheme and the DTO schemas', async () => {
    const res = await hub.call('GET', '/api/docs-json', { token: null });
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/api/v1/clusters',
      '/api/v1/clusters/{name}',
      '/api/v1/clusters/{name}/check',
      '/api/v1/credentials/rotate',
      '/api/v1/projects',
      '/api/v1/projects/{name}',
      '/api/v1/projects/{name}/events',
      '/api/v1/projects/{name}/reconcile',
      '/api/v1/projects/{name}/resume',
      '/api/v1/projects/{name}/suspend',
      '/api/v1/projects/{name}/targets',
      '/api/v1/projects/{name}/targets/{cluster}',
      '/api/v1/projects/{name}/targets/{cluster}/runs',
      '/api/v1/tokens',
      '/api/v1/tokens/{id}',
      '/healthz',
      '/metrics',
      '/readyz',
    ]);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    const create = doc.components.schemas.CreateClusterDto;
    expect(create.required).toEqual(expect.arrayContaining(['name', 'mode']));
    expect(create.properties.mode.enum).toEqual(['push', 'agent']);
    expect(doc.components.schemas.ClusterCredentialsDto.properties.token.writeOnly).toBe(true);
    expect(doc.components.schemas.CreateProjectDto.properties.source.$ref).toBe('#/components/schemas/SourceDto');
    // responses are described too, errors included
    expect(doc.paths['/api/v1/clusters'].post.responses['201'].content['application/json'].schema.$ref).toBe('#/components/schemas/ClusterDto');
    expect(doc.paths['/api/v1/projects/{name}/targets/{cluster}/runs'].get.responses['200'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/RunPageDto',
    );
    expect(doc.paths['/api/v1/projects'].post.responses['400'].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorDto');
    // no schema exposes a credential field except the write-only inputs
    for (const [name, schema] of Object.entries(doc.components.schemas as Record<string, { properties?: Record<string, { writeOnly?: boolean }> }>)) {
      for (const field of ['token', 'password', 'clientKeyData', 'kubeconfig', 'dockerConfigJson']) {
        const prop = schema.properties?.[field];
        if (prop && !(name === 'CreatedTokenDto' && field === 'token')) expect([name, field, prop.writeOnly]).toEqual([name, field, true]);
      }
    }
  });

  it('serves a browsable UI', async () => {
    const res = await fetch(`${hub.url}/api/docs`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('swagger-ui');
  });
});
