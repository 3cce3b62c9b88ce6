// One cold `timoni build web ./checksum -n apps -f a -f b` the Flotilla way,
// in a fresh process (spawned by npm run bench:cue, once per runtime): start
// the CUE engine, build the instance, print the objects as JSON.
// FLOTILLA_CUE_RUNTIME picks native or wasm.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CueEngine, readFileTree } from '@flotilla/cue';
import { DEVEL_VERSION, buildModule, hashTree } from '@flotilla/timoni';

const GOLDEN = join(__dirname, '..', 'testdata', 'timoni-golden');

async function main(): Promise<void> {
  const cue = await CueEngine.start({ poolSize: 1 });
  const tree = readFileTree(join(GOLDEN, 'modules', 'checksum'));
  const values = ['checksum-a.cue', 'checksum-b.yaml'].map((f) => ({ path: `values/${f}`, content: readFileSync(join(GOLDEN, 'values', f), 'utf8') }));
  const build = await buildModule(cue, {
    instance: 'web',
    namespace: 'apps',
    kubeVersion: '1.36.3',
    module: { tree, treeHash: hashTree(tree), ref: { name: 'flotilla.test/checksum', repository: 'file://checksum', version: DEVEL_VERSION, digest: 'unknown' } },
    values,
  });
  await cue.close();
  const objects = build.steps.flatMap((s) => s.objects);
  process.stdout.write(`${JSON.stringify({ runtime: cue.runtime, objects: objects.length })}\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
