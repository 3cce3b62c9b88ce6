import { DeleteError, DryRunError, KubeApiError, NotFoundError, WaitTimeoutError, isNotFound } from './errors';

describe('errors', () => {
  it('name the object and keep the cause', () => {
    const api = new KubeApiError('PATCH', '/apis/batch/v1/namespaces/a/jobs/j', 422, { reason: 'Invalid', message: 'field is immutable' }, 'Job/a/j');
    expect(api.message).toBe('Job/a/j: PATCH /apis/batch/v1/namespaces/a/jobs/j: 422 Invalid: field is immutable');
    const dry = new DryRunError('Job/a/j', true, { cause: api });
    expect(dry.name).toBe('DryRunError');
    expect(dry.cause).toBe(api);
    expect(dry.message).toContain('Job/a/j dry-run failed (immutable field; set action.timoni.sh/force: enabled');
  });

  it('give the force hint only when the server names an immutable field', () => {
    const invalid = new KubeApiError('PATCH', '/apis/apps/v1/namespaces/a/deployments/d', 422, { reason: 'Invalid', message: 'spec.replicas: Invalid value: -1: must be greater than or equal to 0' }, 'Deployment/a/d');
    const dry = new DryRunError('Deployment/a/d', true, { cause: invalid });
    expect(dry.message).toBe(`Deployment/a/d dry-run failed: ${invalid.message}`);
  });

  it('list every object in wait and delete errors', () => {
    const ref = { group: 'apps', version: 'v1', kind: 'Deployment', namespace: 'a', name: 'w' };
    const timeout = new WaitTimeoutError(60_000, [{ ref, subject: 'Deployment/a/w', status: 'InProgress', message: 'Ready: 0/1' }]);
    expect(timeout.message).toBe("timeout after 60s waiting for 1 object(s): Deployment/a/w status: 'InProgress' (Ready: 0/1)");
    const del = new DeleteError([{ subject: 'ConfigMap/a/x', error: new Error('boom') }]);
    expect(del.message).toBe('delete failed for ConfigMap/a/x (boom)');
  });

  it('tells NotFound apart', () => {
    expect(isNotFound(new NotFoundError('GET', '/x', 404, undefined))).toBe(true);
    expect(isNotFound(new KubeApiError('GET', '/x', 500, undefined))).toBe(false);
  });
});
