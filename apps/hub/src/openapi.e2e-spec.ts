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
  });

  it('serves a browsable UI', async () => {
    const res = await fetch(`${hub.url}/api/docs`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('swagger-ui');
  });
});
