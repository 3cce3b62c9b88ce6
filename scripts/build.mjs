// Builds what `npm start` needs: native pieces of the libs first (each lib may
// ship a build.mjs), then TypeScript into dist/ (tsconfig.build.json: no test/,
// no specs), then the status page into dist/ui (apps/ui/build.mjs). With
// --test-tools (`npm run build:test`) it also builds the test harness's tools
// (the Kubernetes API server) and compiles test/harness, which the hub itself
// never needs.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');

function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (res.status !== 0) {
    console.error(`build: ${cmd} ${args.join(' ')} failed with exit code ${res.status}`);
    process.exit(res.status ?? 1);
  }
}

const testTools = process.argv.includes('--test-tools');
const dirs = testTools ? ['libs', 'test'] : ['libs'];
for (const dir of dirs) {
  const base = join(root, dir);
  if (!existsSync(base)) continue;
  for (const name of readdirSync(base).sort()) {
    const script = join(base, name, 'build.mjs');
    if (existsSync(script)) run(process.execPath, [script]);
  }
}

rmSync(join(root, 'dist'), { recursive: true, force: true });
run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', testTools ? 'tsconfig.build-test.json' : 'tsconfig.build.json']);

// Compiled code imports libs as `@flotilla/<name>`; small package stubs under
// dist/node_modules let Node resolve them without a path-rewriting step.
for (const name of existsSync(join(root, 'libs')) ? readdirSync(join(root, 'libs')) : []) {
  if (!existsSync(join(root, 'libs', name, 'src', 'index.ts'))) continue;
  const stub = join(root, 'dist', 'node_modules', '@flotilla', name);
  mkdirSync(stub, { recursive: true });
  writeFileSync(
    join(stub, 'package.json'),
    JSON.stringify({ name: `@flotilla/${name}`, main: `../../../libs/${name}/src/index.js` }, null, 2),
  );
}

// The status page's assets, which the hub serves from dist/ui.
run(process.execPath, [join(root, 'apps', 'ui', 'build.mjs')]);

// The `flotilla` bin (package.json) is the CLI bundled into one file from
// the TypeScript sources: a command starts without resolving and reading
// hundreds of modules, and esbuild keeps only what the CLI imports (tsc's
// CommonJS barrels would evaluate every module of each lib). The CLI's
// suites run this bundle, so what they test is what ships.
const cliMain = join(root, 'apps', 'cli', 'src', 'main.ts');
if (existsSync(cliMain)) {
  const { buildSync } = await import('esbuild');
  const options = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning', tsconfig: join(root, 'tsconfig.json') };
  // The CUE wasm worker runs from source text; the bundle's own copy of that
  // function would call esbuild's name helper, which the worker lacks.
  const worker = buildSync({
    ...options,
    stdin: { contents: "import { cueWorkerMain } from './libs/cue/src/worker-main';\ncueWorkerMain();\n", resolveDir: root, loader: 'ts' },
    minify: true,
    write: false,
  });
  const define = { FLOTILLA_CUE_WORKER_SOURCE: JSON.stringify(worker.outputFiles[0].text) };
  // Minified (names kept, for stack traces and error classes): fewer bytes to
  // read and to check against the code cache on every command. undici (half
  // the bundle) stays a package: only commands that reach an API server load it.
  buildSync({ ...options, entryPoints: [cliMain], outfile: join(root, 'dist', 'cli', 'cli.js'), minify: true, keepNames: true, define, external: ['undici'] });
  // The bin itself is a small launcher that loads cli.js with a V8 code cache.
  const bin = join(root, 'dist', 'cli', 'flotilla.js');
  buildSync({ ...options, entryPoints: [join(root, 'apps', 'cli', 'src', 'launcher.ts')], outfile: bin });
  chmodSync(bin, 0o755);
}
