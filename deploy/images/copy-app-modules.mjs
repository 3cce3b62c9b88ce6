// Copies the npm packages one compiled app needs, and nothing else, so an
// image carries only its own dependencies (the repository has one
// package.json for every app). Run in the build stage after `npm run build`
// and `npm prune --omit=dev`:
//   node deploy/images/copy-app-modules.mjs dist/apps/agent/src/main.js /out/node_modules
// Walks the compiled code from the entry point (relative requires and the
// @flotilla/* stubs in dist/node_modules), collects the packages it requires,
// then adds their dependencies from each package.json, resolved the way Node
// resolves them. Prints what it kept.
import { cpSync, existsSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';

const [entry, out] = process.argv.slice(2);
if (!entry || !out) {
  console.error('usage: node copy-app-modules.mjs <compiled entry point> <output node_modules>');
  process.exit(2);
}
const root = process.cwd();
const builtins = new Set(builtinModules);
const requireCall = /\brequire\(\s*["']([^"']+)["']\s*\)/g;

/** `@scope/name` or `name` of a bare specifier. */
const packageName = (spec) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');

function resolveFile(path) {
  for (const candidate of [path, `${path}.js`, join(path, 'index.js')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

// 1. our own compiled code, from the entry point: the packages it requires
const packages = new Set();
const seen = new Set();
const queue = [resolve(entry)];
while (queue.length > 0) {
  const file = queue.pop();
  if (seen.has(file)) continue;
  seen.add(file);
  for (const [, spec] of readFileSync(file, 'utf8').matchAll(requireCall)) {
    if (spec.startsWith('node:') || builtins.has(spec)) continue;
    let next;
    if (spec.startsWith('.')) next = resolveFile(resolve(dirname(file), spec));
    else if (spec.startsWith('@flotilla/')) {
      const stub = join(root, 'dist', 'node_modules', spec, 'package.json');
      next = resolveFile(resolve(dirname(stub), JSON.parse(readFileSync(stub, 'utf8')).main));
    } else {
      packages.add(packageName(spec));
      continue;
    }
    if (!next) throw new Error(`${relative(root, file)}: cannot resolve ${spec}`);
    queue.push(next);
  }
}

// 2. those packages and their dependencies, each found as Node finds it (nested first, then up)
function packageDir(name, from) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === root || dir === dirname(dir)) return undefined;
  }
}
const dirs = new Set();
const pending = [...packages].map((name) => ({ name, from: root, optional: false }));
while (pending.length > 0) {
  const { name, from, optional } = pending.pop();
  const dir = packageDir(name, from);
  if (!dir) {
    if (optional) continue;
    throw new Error(`package ${name} (required from ${relative(root, from) || '.'}) is not installed`);
  }
  if (dirs.has(dir)) continue;
  dirs.add(dir);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  for (const dep of Object.keys(pkg.dependencies ?? {})) pending.push({ name: dep, from: dir, optional: false });
  // optional and peer dependencies come along when installed (platform binaries, plugins)
  for (const dep of [...Object.keys(pkg.optionalDependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]) {
    pending.push({ name: dep, from: dir, optional: true });
  }
}

// 3. copy each package directory (a nested one is copied with its parent), keeping the layout
const top = join(root, 'node_modules');
const kept = [...dirs].filter((dir) => ![...dirs].some((other) => other !== dir && dir.startsWith(`${other}/`))).sort();
for (const dir of kept) cpSync(dir, join(out, relative(top, dir)), { recursive: true, verbatimSymlinks: true });
console.log(`copy-app-modules: ${entry}: ${seen.size} files of ours require ${packages.size} packages; kept ${kept.length} package directories in ${out}`);
