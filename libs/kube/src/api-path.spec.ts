import { apiPathTemplate } from './api-path';

describe('api path template', () => {
  it.each([
    ['/api/v1/namespaces/apps/secrets/timoni.app', '/api/v1/namespaces/{namespace}/secrets/{name}'],
    ['/apis/apps/v1/namespaces/apps/deployments/web/status?x=1', '/apis/apps/v1/namespaces/{namespace}/deployments/{name}/status'],
    ['/api/v1/namespaces/apps', '/api/v1/namespaces/{namespace}'],
    ['/api/v1/namespaces', '/api/v1/namespaces'],
    ['/apis/rbac.authorization.k8s.io/v1/clusterroles/system:x', '/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}'],
    ['/apis/apps/v1', '/apis/apps/v1'],
    ['/version', '/version'],
  ])('%s', (path, expected) => {
    expect(apiPathTemplate(path)).toBe(expected);
  });
});
