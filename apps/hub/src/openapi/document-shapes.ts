import type { OpenAPIObject, ParameterObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';
import { DNS_LABEL } from '../common/validators';

// What decorators cannot say: which fields go together, that objects take no
// other fields, that counts are integers and times are RFC 3339. Applied to
// the generated document once, at start.

type Schemas = Record<string, SchemaObject | ReferenceObject>;

const ref = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });

function schema(schemas: Schemas, name: string): SchemaObject {
  const s = schemas[name];
  if (!s || '$ref' in s) throw new Error(`OpenAPI: no schema ${name} to reshape`);
  return s;
}

/** An object schema with only `names` of `from`'s properties, the `required` ones required. */
function variant(from: SchemaObject, names: string[], required: string[], overrides: Record<string, SchemaObject | ReferenceObject> = {}): SchemaObject {
  const properties: Record<string, SchemaObject | ReferenceObject> = {};
  for (const n of names) properties[n] = overrides[n] ?? from.properties![n];
  return { type: 'object', properties, required, additionalProperties: false };
}

/** Credentials take exactly one kind: the validation pipe's cross-field rule as oneOf. */
function credentialKinds(schemas: Schemas): void {
  const cluster = schema(schemas, 'ClusterCredentialsDto');
  schemas.TokenCredentialsDto = variant(cluster, ['token'], ['token']);
  schemas.ClientCertificateCredentialsDto = variant(cluster, ['clientCertificateData', 'clientKeyData'], ['clientCertificateData', 'clientKeyData']);
  schemas.KubeconfigCredentialsDto = variant(cluster, ['kubeconfig', 'context'], ['kubeconfig']);
  schemas.ClusterCredentialsDto = {
    description: 'exactly one of: a token; a client certificate with its key; a kubeconfig (with an optional context)',
    oneOf: [ref('TokenCredentialsDto'), ref('ClientCertificateCredentialsDto'), ref('KubeconfigCredentialsDto')],
  };

  const registry = schema(schemas, 'RegistryCredentialsDto');
  schemas.BasicRegistryCredentialsDto = variant(registry, ['username', 'password'], ['username', 'password']);
  schemas.DockerConfigRegistryCredentialsDto = variant(registry, ['dockerConfigJson'], ['dockerConfigJson']);
  schemas.RegistryCredentialsDto = {
    description: 'either username with password, or a docker config',
    oneOf: [ref('BasicRegistryCredentialsDto'), ref('DockerConfigRegistryCredentialsDto')],
  };
}

/** A token for a tenant is viewer or operator there; admin is global only (the pipe's cross-field rule). */
function tokenScopes(schemas: Schemas): void {
  const create = schema(schemas, 'CreateTokenDto');
  const role = create.properties!.role as SchemaObject;
  schemas.CreateTokenDto = {
    description: 'a global token (any role), or a token for one tenant (viewer or operator)',
    oneOf: [
      variant(create, ['name', 'role', 'expiresAt'], ['name', 'role']),
      variant(create, ['name', 'role', 'tenant', 'expiresAt'], ['name', 'role', 'tenant'], { role: { ...role, enum: ['viewer', 'operator'] } }),
    ],
  };
}

/** A rollout is groups or waves, and a wave names its group or its groups (the pipe's cross-field rules). */
function rolloutForms(schemas: Schemas): void {
  const rollout = schema(schemas, 'RolloutDto');
  schemas.RolloutDto = {
    description: 'cluster groups, one wave each, or waves with their gates',
    oneOf: [variant(rollout, ['groups', 'onFailure', 'windows'], ['groups']), variant(rollout, ['waves', 'onFailure', 'windows'], ['waves'])],
  };
  const wave = schema(schemas, 'RolloutWaveDto');
  const gates = ['soak', 'maxConcurrent', 'maxFailures', 'approval', 'progressDeadline'];
  schemas.RolloutWaveDto = {
    description: 'a wave: one group or several, each group in one wave only',
    oneOf: [variant(wave, ['group', ...gates], ['group']), variant(wave, ['groups', ...gates], ['groups'])],
  };
}

/** Push clusters need credentials and an endpoint (or a kubeconfig that names one); agent clusters take neither. */
function clusterModes(schemas: Schemas): void {
  const create = schema(schemas, 'CreateClusterDto');
  const common = ['name', 'group', 'labels', 'mode'];
  const mode = (m: string): SchemaObject => ({ ...(create.properties!.mode as SchemaObject), enum: [m] });
  schemas.PushClusterWithEndpointDto = variant(create, [...common, 'endpoint', 'credentials'], ['name', 'mode', 'endpoint', 'credentials'], { mode: mode('push') });
  schemas.PushClusterFromKubeconfigDto = variant(create, [...common, 'endpoint', 'credentials'], ['name', 'mode', 'credentials'], {
    mode: mode('push'),
    credentials: ref('KubeconfigCredentialsDto'),
  });
  schemas.AgentClusterRegistrationDto = variant(create, common, ['name', 'mode'], { mode: mode('agent') });
  schemas.CreateClusterDto = {
    description: 'a push cluster (credentials, and an endpoint unless the kubeconfig gives it) or an agent cluster',
    anyOf: [ref('PushClusterWithEndpointDto'), ref('PushClusterFromKubeconfigDto'), ref('AgentClusterRegistrationDto')],
  };
}

/** The fleet diff takes at most one artifact source (the pipe's cross-field rule); no body is the Project's own tag. */
function diffRequest(doc: OpenAPIObject): void {
  const request = schema(doc.components!.schemas as Schemas, 'ProjectDiffRequestDto');
  const pairs = [['tag', 'digest'], ['tag', 'artifact'], ['digest', 'artifact']];
  request.not = { anyOf: pairs.map((required) => ({ required })) };
  const body = doc.paths['/api/v1/projects/{name}/diff']?.post?.requestBody;
  if (body && !('$ref' in body)) body.required = false;
}

const TIME_FIELDS = /(At|Time)$|^(time|lastChecked)$/;

type AnySchema = SchemaObject | ReferenceObject;

/** OpenAPI 3.0's `nullable` in 3.1 terms: null is one more type, or one more choice beside a $ref. */
function withNull(s: SchemaObject): AnySchema {
  if (!s.nullable) return s;
  const { nullable: _nullable, type, allOf, ...rest } = s;
  if (allOf) return { ...rest, anyOf: [...allOf, { type: 'null' }] } as SchemaObject;
  return { ...rest, type: [type, 'null'] } as unknown as SchemaObject;
}

/**
 * Closes every object, makes counts integers, times date-time and nullable
 * fields 3.1 unions, recursively through one schema; returns the new schema.
 */
function tighten(input: AnySchema): AnySchema {
  if ('$ref' in input) return input;
  const s = input;
  if (s.type === 'number') s.type = 'integer';
  if (s.properties) {
    if (s.additionalProperties === undefined) s.additionalProperties = false;
    for (const [name, prop] of Object.entries(s.properties)) {
      if (!('$ref' in prop) && prop.type === 'string' && TIME_FIELDS.test(name) && !prop.format) prop.format = 'date-time';
      s.properties[name] = tighten(prop);
    }
  }
  if (s.items) s.items = tighten(s.items);
  if (typeof s.additionalProperties === 'object') s.additionalProperties = tighten(s.additionalProperties);
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const) if (s[key]) s[key] = s[key].map(tighten);
  return withNull(s);
}

/** In and NotIn need values; Exists and DoesNotExist take none (the pipe's cross-field rule). */
function selectorOperators(schemas: Schemas): void {
  const requirement = schema(schemas, 'LabelSelectorRequirementDto');
  const values = requirement.properties!.values as SchemaObject;
  const operator = requirement.properties!.operator as SchemaObject;
  schemas.LabelSelectorRequirementDto = {
    description: requirement.description,
    oneOf: [
      variant(requirement, ['key', 'operator', 'values'], ['key', 'operator', 'values'], {
        operator: { ...operator, enum: ['In', 'NotIn'] },
        values: { ...values, minItems: 1 },
      }),
      variant(requirement, ['key', 'operator', 'values'], ['key', 'operator'], {
        operator: { ...operator, enum: ['Exists', 'DoesNotExist'] },
        values: { ...values, maxItems: 0 },
      }),
    ],
  };
}

/**
 * Per operation: resource names in paths are DNS labels and token ids UUIDs;
 * an empty query value counts as absent; a PATCH without a body changes
 * nothing; Node answers 431 before any route when the request line and
 * headers pass its 16 KiB limit.
 */
function operations(doc: OpenAPIObject): void {
  for (const item of Object.values(doc.paths)) {
    for (const [method, op] of Object.entries({ get: item.get, post: item.post, patch: item.patch, delete: item.delete })) {
      if (!op) continue;
      for (const p of (op.parameters ?? []) as ParameterObject[]) {
        if (p.in === 'path') p.schema = p.name === 'id' ? { type: 'string', format: 'uuid' } : { type: 'string', pattern: DNS_LABEL.source, maxLength: 63 };
        if (p.in === 'query' && !p.required) p.allowEmptyValue = true;
      }
      if (method === 'patch' && op.requestBody && !('$ref' in op.requestBody)) op.requestBody.required = false;
      op.responses['431'] = { description: 'request line and headers together larger than 16 KiB' };
    }
  }
}

export function reshapeDocument(doc: OpenAPIObject): OpenAPIObject {
  const schemas = doc.components!.schemas as Schemas;
  credentialKinds(schemas);
  clusterModes(schemas);
  tokenScopes(schemas);
  rolloutForms(schemas);
  selectorOperators(schemas);
  diffRequest(doc);
  for (const [name, s] of Object.entries(schemas)) schemas[name] = tighten(s);
  operations(doc);
  // 3.1 is JSON Schema: propertyNames and null types say what 3.0 cannot.
  doc.openapi = '3.1.0';
  return doc;
}
