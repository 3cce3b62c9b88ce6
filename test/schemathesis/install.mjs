// Installs the pinned schemathesis from PyPI into a virtual environment under
// ${FLOTILLA_CACHE_DIR:-~/.cache/flotilla}, once per version; later runs reuse
// it. Prints the path of its `st` executable. SCHEMATHESIS_BIN points at one
// installed elsewhere instead.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const requirements = join(import.meta.dirname, 'requirements.txt');

function run(cmd, args) {
  const res = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (res.status !== 0) throw new Error(`schemathesis install: \`${cmd} ${args.join(' ')}\` failed:\n${res.stderr || res.stdout || res.error}`);
}

export function ensureSchemathesis() {
  if (process.env.SCHEMATHESIS_BIN) return process.env.SCHEMATHESIS_BIN;
  const pin = readFileSync(requirements, 'utf8').match(/^schemathesis==(\S+)$/m);
  if (!pin) throw new Error(`${requirements}: schemathesis must be pinned as schemathesis==VERSION`);
  const cache = process.env.FLOTILLA_CACHE_DIR ?? join(homedir(), '.cache', 'flotilla');
  const venv = join(cache, `schemathesis-${pin[1]}`);
  const st = join(venv, 'bin', 'st');
  // A venv's scripts name its own path, so it is made in place; the marker
  // tells a finished install from one that was cut off.
  const done = join(venv, '.installed');
  if (existsSync(done)) return st;
  rmSync(venv, { recursive: true, force: true });
  run('python3', ['-m', 'venv', venv]);
  run(join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', '-r', requirements]);
  if (!existsSync(st)) throw new Error(`schemathesis install: ${st} missing after pip install`);
  writeFileSync(done, `${pin[1]}\n`);
  return st;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(ensureSchemathesis());
}
