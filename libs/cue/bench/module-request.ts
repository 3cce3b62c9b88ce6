// The realistic build the benchmark measures: the webapp fixture with
// Timoni's schema overlay and merged values (3 workers, test step on), which
// yields 14 Kubernetes objects in 2 apply steps.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readFileTree, type CueEngine, type EvaluateRequest } from '@flotilla/cue';

const testdata = join(__dirname, '..', 'testdata');

export async function moduleBuildRequest(engine: CueEngine): Promise<EvaluateRequest> {
  const tree = readFileTree(join(testdata, 'webapp'));
  tree['timoni.schema.cue'] = readFileSync(join(testdata, 'overlays', 'timoni.schema.cue'));
  const merged = await engine.mergeValues({
    base: { path: 'values.cue', content: tree['values.cue'] },
    overlays: [{ path: 'shop.cue', content: readFileSync(join(testdata, 'values', 'shop.cue')) }],
  });
  tree['values.cue'] = `package main\n\nvalues: ${merged.cue}\n`;
  return {
    files: tree,
    tags: { name: 'shop', namespace: 'apps' },
    tagVars: { moduleVersion: '1.0.0', kubeVersion: '1.31.0' },
    checks: [{ path: 'timoni.instance', concrete: true, final: true }],
    exports: [{ path: 'timoni.apply', fields: true, yamlCompat: true }],
  };
}

export const ms = (x: number) => `${x.toFixed(0)} ms`;
