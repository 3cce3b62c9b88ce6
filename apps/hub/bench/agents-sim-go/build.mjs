// Builds the agents bench's Go simulator once per inputs into
// ${FLOTILLA_CACHE_DIR:-~/.cache/flotilla} and prints the binary's path as
// its last line of stdout; later runs reuse the cache.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const here = import.meta.dirname;
const sources = ['go.mod', 'go.sum', ...readdirSync(here).filter((f) => f.endsWith('.go')), ...readdirSync(join(here, 'agentpb')).map((f) => join('agentpb', f))].sort();

const go = spawnSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' });
if (go.status !== 0) throw new Error(`agents-sim build: \`go env GOVERSION\` failed (is Go installed?): ${go.stderr}`);
const hash = createHash('sha256').update(go.stdout.trim());
for (const f of sources) hash.update(f).update('\0').update(readFileSync(join(here, f))).update('\0');
const cacheRoot = process.env.FLOTILLA_CACHE_DIR || join(homedir(), '.cache', 'flotilla');
const binary = join(cacheRoot, `agents-sim-${hash.digest('hex').slice(0, 12)}`);

if (!existsSync(binary)) {
  mkdirSync(cacheRoot, { recursive: true });
  const tmp = `${binary}.tmp-${process.pid}`;
  const started = Date.now();
  console.error('agents-sim build: go build (a cold build of grpc-go takes about a minute on 2 cores)');
  const env = { ...process.env, GOFLAGS: `${process.env.GOFLAGS ?? ''} -mod=mod`.trim(), CGO_ENABLED: '0' };
  const res = spawnSync('go', ['build', '-trimpath', '-o', tmp, '.'], { cwd: here, env, stdio: ['ignore', 'inherit', 'inherit'] });
  if (res.status !== 0) throw new Error(`agents-sim build: go build failed with exit code ${res.status}`);
  renameSync(tmp, binary);
  console.error(`agents-sim build: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
console.log(binary);
