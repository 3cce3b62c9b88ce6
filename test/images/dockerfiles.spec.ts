// Static checks of the Dockerfiles: the Node version CI tests, the npm
// scripts, the entry points and the runtime constraints. images.e2e-spec.ts
// builds and starts them for real (from locally built base images, passed as
// build arguments); these keep the defaults users build with honest.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** Instructions of one Dockerfile stage, continuation lines joined. */
function stages(text: string): string[][] {
  const lines = text.replace(/\\\n\s*/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const out: string[][] = [[]];
  for (const line of lines) {
    if (/^FROM\s/i.test(line)) out.push([]);
    out[out.length - 1].push(line);
  }
  return out; // out[0]: the ARGs before the first FROM
}

describe.each([
  ['hub', 'deploy/images/hub.Dockerfile', 'dist/apps/hub/src/main.js'],
  ['agent', 'deploy/images/agent.Dockerfile', 'dist/apps/agent/src/main.js'],
])('%s image (%s)', (_app, file, entry) => {
  const all = stages(read(file));
  const [globals] = all;
  const runtime = all[all.length - 1];
  const build = all.find((s) => / AS build$/i.test(s[0]))!;

  it('runs the Node that the Node-LTS CI suites run on', () => {
    const ci = /const NODE_VERSION = '([\d.]+)'/.exec(read('scripts/test-on-node-lts.mjs'))?.[1];
    expect(ci).toBeDefined();
    expect(globals).toContain(`ARG NODE_VERSION=${ci}`);
    // the base is a build argument whose default is the official image of that version
    expect(globals).toContain('ARG NODE_IMAGE=node:${NODE_VERSION}-trixie-slim');
    expect(globals).toContain('ARG GO_IMAGE=golang:${GO_VERSION}-trixie');
    expect(build[0]).toBe('FROM ${NODE_IMAGE} AS build');
    expect(runtime[0]).toBe('FROM ${NODE_IMAGE}');
  });

  it('builds with the npm scripts CI runs (.ci/run), then drops dev dependencies', () => {
    expect(read('.ci/run')).toContain('npm install --no-audit --no-fund');
    const runs = build.filter((l) => l.startsWith('RUN ')).join('\n');
    expect(runs).toContain('npm install --no-audit --no-fund');
    expect(runs).toMatch(/npm run build\b(?! *:)/);
    expect(runs).toContain('npm prune --omit=dev');
    // the native CUE helper the engine runs by default, and the wasm it falls back to
    for (const file of ['cue-native', 'cue.wasm', 'wasm_exec.js']) expect(runs).toContain(`/${file}`);
  });

  it('runs as a numeric non-root user, without npm, from the compiled entry point', () => {
    expect(runtime).toContain('USER 65532:65532');
    expect(runtime.join('\n')).toMatch(/rm -rf [^\n]*\/usr\/local\/lib\/node_modules [^\n]*\/usr\/local\/bin\/npm /);
    expect(runtime.find((l) => l.startsWith('ENTRYPOINT'))).toBe(`ENTRYPOINT ["node", "${entry}"]`);
    expect(runtime).toContain('COPY --from=build /cue-wasm ./cue-wasm');
    expect(runtime.join('\n')).toContain('FLOTILLA_CUE_WASM_DIR=/app/cue-wasm');
    // npm run build (tsconfig.build.json) writes the entry point there
    expect(existsSync(join(root, 'apps', entry.split('/')[2], 'src', 'main.ts'))).toBe(true);
  });
});

it('.dockerignore keeps local installs, build output and caches out of the build context', () => {
  const ignored = read('.dockerignore').split('\n').filter((l) => l && !l.startsWith('#'));
  expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git', 'libs/cue/.wasm-location.json']));
});
