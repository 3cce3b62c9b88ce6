import { startTestHub, type TestHub } from '../../test/hub';
import { DNS_LABEL, HTTP_URL, LABEL_KEY, LABEL_VALUE, PEM_DATA } from '../common/validators';
import { TARGET_PHASES } from '../database/entities';
import { LABEL_SELECTOR_GRAMMAR } from '../targeting/label-selector-parser';
import { LABEL_SELECTOR_FORMAT } from './validation-keywords';

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
      '/api/v1/audit',
      '/api/v1/auth/oidc',
      '/api/v1/clusters',
      '/api/v1/clusters/{name}',
      '/api/v1/clusters/{name}/agent',
      '/api/v1/clusters/{name}/agent/manifest',
      '/api/v1/clusters/{name}/agent/reset',
      '/api/v1/clusters/{name}/agent/upgrade',
      '/api/v1/clusters/{name}/check',
      '/api/v1/credentials/rotate',
      '/api/v1/fleet/matrix',
      '/api/v1/fleet/summary',
      '/api/v1/oidc-bindings',
      '/api/v1/oidc-bindings/{id}',
      '/api/v1/projects',
      '/api/v1/projects/{name}',
      '/api/v1/projects/{name}/deliveries',
      '/api/v1/projects/{name}/diff',
      '/api/v1/projects/{name}/events',
      '/api/v1/projects/{name}/reconcile',
      '/api/v1/projects/{name}/resume',
      '/api/v1/projects/{name}/rollout',
      '/api/v1/projects/{name}/rollout/approve',
      '/api/v1/projects/{name}/rollout/hold',
      '/api/v1/projects/{name}/rollout/retry',
      '/api/v1/projects/{name}/rollout/rollback',
      '/api/v1/projects/{name}/suspend',
      '/api/v1/projects/{name}/targets',
      '/api/v1/projects/{name}/targets/{cluster}',
      '/api/v1/projects/{name}/targets/{cluster}/runs',
      '/api/v1/session',
      '/api/v1/tenants',
      '/api/v1/tenants/{name}',
      '/api/v1/tokens',
      '/api/v1/tokens/{id}',
      '/healthz',
      '/metrics',
      '/readyz',
    ]);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    const schemas = doc.components.schemas;
    // a push cluster with an endpoint, one whose kubeconfig names it, or an agent cluster
    expect(schemas.CreateClusterDto.anyOf.map((r: { $ref: string }) => r.$ref.split('/').pop())).toEqual([
      'PushClusterWithEndpointDto',
      'PushClusterFromKubeconfigDto',
      'AgentClusterRegistrationDto',
    ]);
    expect(schemas.PushClusterWithEndpointDto.required).toEqual(['name', 'mode', 'endpoint', 'credentials']);
    expect(schemas.AgentClusterRegistrationDto).toMatchObject({ required: ['name', 'mode'], additionalProperties: false, properties: { mode: { enum: ['agent'] } } });
    expect(schemas.AgentClusterRegistrationDto.properties.credentials).toBeUndefined();
    // an upgrade names no image: the field is there only to be refused
    expect(schemas.AgentUpgradeRequestDto).toMatchObject({ additionalProperties: false, properties: { image: { not: {} } } });
    expect(schemas.AgentUpgradeRequestDto.required ?? []).toEqual([]);
    expect(schemas.AgentViewDto.required).toEqual(expect.arrayContaining(['supported', 'skew']));
    expect(schemas.ClusterCredentialsDto.oneOf).toHaveLength(3);
    expect(schemas.TokenCredentialsDto).toMatchObject({ required: ['token'], additionalProperties: false });
    expect(schemas.TokenCredentialsDto.properties.token.writeOnly).toBe(true);
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

  it('states the rules the API enforces: patterns, limits, enums, closed objects, integers, times, nulls', async () => {
    const doc = (await hub.call('GET', '/api/docs-json', { token: null })).body;
    const schemas = doc.components.schemas;
    expect(doc.openapi).toBe('3.1.0');
    // the validators' own expressions, so both always agree
    expect(schemas.PushClusterWithEndpointDto.properties.name).toMatchObject({ pattern: DNS_LABEL.source, maxLength: 63 });
    expect(schemas.EndpointDto.properties.server).toMatchObject({ pattern: HTTP_URL.source, maxLength: 2048 });
    expect(schemas.EndpointDto.properties.caData.pattern).toBe(PEM_DATA.source);
    expect(schemas.CreateProjectDto.properties.serviceAccountName.maxLength).toBe(253);
    expect(schemas.UpdateProjectDto.properties.serviceAccountName.maxLength).toBe(253);
    expect(schemas.TargetsDto.properties.names).toMatchObject({ maxItems: 1000, items: { pattern: DNS_LABEL.source } });
    expect(schemas.CreateProjectDto.properties.annotations).toMatchObject({ propertyNames: { pattern: LABEL_KEY.source }, additionalProperties: { type: 'string' } });
    expect(schemas.AgentClusterRegistrationDto.properties.labels.additionalProperties.pattern).toBe(LABEL_VALUE.source);
    // free text refuses NUL like the pipe does
    expect(schemas.BasicRegistryCredentialsDto.properties.password.pattern).toBe('^[^\\u0000]*$');
    expect(schemas.LabelSelectorRequirementDto.oneOf.map((v: { properties: { operator: { enum: string[] } } }) => v.properties.operator.enum)).toEqual([
      ['In', 'NotIn'],
      ['Exists', 'DoesNotExist'],
    ]);
    // responses: closed, integer counts, RFC 3339 times, nullable as a union
    expect(schemas.ClusterPageDto).toMatchObject({ additionalProperties: false, properties: { total: { type: 'integer' } } });
    expect(schemas.TokenDto.properties.createdAt).toMatchObject({ type: 'string', format: 'date-time' });
    expect(schemas.TokenDto.properties.revokedAt.type).toEqual(['string', 'null']);
    expect(schemas.ClusterDto.properties.endpoint.anyOf).toEqual([{ $ref: '#/components/schemas/EndpointViewDto' }, { type: 'null' }]);
    expect(schemas.TargetDto.properties.phase.enum).toEqual([...TARGET_PHASES]);
    expect(JSON.stringify(schemas)).not.toContain('"type":"number"');
    expect(JSON.stringify(schemas)).not.toContain('"nullable"');
    // parameters: names in paths, empty query values, integers for paging
    const list = doc.paths['/api/v1/clusters'].get;
    expect(list.parameters.find((p: { name: string }) => p.name === 'limit')).toMatchObject({ allowEmptyValue: true, schema: { type: 'integer', minimum: 1, maximum: 500 } });
    // a selector's grammar is the parser's alone: told in words and named by a format, never restated as a pattern
    const selector = list.parameters.find((p: { name: string }) => p.name === 'labelSelector');
    expect(selector.schema).toEqual({ type: 'string', format: LABEL_SELECTOR_FORMAT, minLength: 1, maxLength: 4096 });
    expect(selector.description).toContain(LABEL_SELECTOR_GRAMMAR);
    expect(doc.paths['/api/v1/clusters/{name}'].get.parameters[0].schema).toEqual({ type: 'string', pattern: DNS_LABEL.source, maxLength: 63 });
    expect(doc.paths['/api/v1/tokens/{id}'].delete.parameters[0].schema).toEqual({ type: 'string', format: 'uuid' });
    expect(doc.paths['/api/v1/projects/{name}'].patch.requestBody.required).toBe(false);
    // PATCH of a Project is a merge patch: nothing defaults, null removes
    const patch = doc.paths['/api/v1/projects/{name}'].patch;
    expect(patch.description).toContain('RFC 7396');
    expect(Object.keys(patch.requestBody.content)).toEqual(['application/merge-patch+json', 'application/json']);
    expect(schemas.SourcePatchDto.properties.tag).toMatchObject({ type: ['string', 'null'] });
    expect(schemas.SourcePatchDto.properties.tag.default).toBeUndefined();
    expect(schemas.SourcePatchDto.required ?? []).toEqual([]);
    // values refuse NUL as the pipe does; a pattern does not apply to null
    expect(schemas.UpdateProjectDto.properties.annotations.additionalProperties).toEqual({ type: ['string', 'null'], pattern: '^[^\\u0000]*$' });
    expect(schemas.TargetsPatchDto.properties.labelSelector.anyOf).toEqual([{ $ref: '#/components/schemas/LabelSelectorPatchDto' }, { type: 'null' }]);
    expect(list.responses['431']).toBeDefined();
  });

  it('serves a browsable UI', async () => {
    const res = await fetch(`${hub.url}/api/docs`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('swagger-ui');
  });
});
