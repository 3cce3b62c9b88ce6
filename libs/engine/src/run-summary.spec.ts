import { countChanges } from './change-counts';
import { DependencyNotReadyError } from './errors';
import { summarizeComponents } from './run-summary';
import type { RunResult } from './types';

describe('summarizeComponents', () => {
  it('gives each component its status, failure reason and instances as JSON', () => {
    const result = {
      components: [
        {
          name: 'infra', status: 'Succeeded', bundle: 'infra', durationMs: 12,
          instances: [{ name: 'db', namespace: 'apps', component: 'infra', bundle: 'infra', changes: [], counts: countChanges([]), ready: true, durationMs: 3, module: { name: 'm', repository: 'oci://r/m', version: '1.0.0', digest: 'sha256:1' } }],
        },
        { name: 'app', status: 'Skipped', durationMs: 0, instances: [], error: new DependencyNotReadyError('app', ['infra']) },
      ],
    } as unknown as RunResult;
    const summary = summarizeComponents(result);
    expect(summary).toEqual([
      { name: 'infra', status: 'Succeeded', bundle: 'infra', durationMs: 12, instances: [{ name: 'db', namespace: 'apps', ready: true, moduleName: 'm', moduleVersion: '1.0.0', moduleDigest: 'sha256:1' }] },
      { name: 'app', status: 'Skipped', durationMs: 0, reason: 'DependencyNotReady', message: 'component app: not run: needs infra, which did not succeed', instances: [] },
    ]);
    expect(JSON.parse(JSON.stringify(summary))).toEqual(summary);
  });
});
