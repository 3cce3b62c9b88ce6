import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DATABASE_KINDS, startTestHub, type TestHub } from '../../test/hub';

// An outside fuzzer reads the hub's own OpenAPI document and checks, for every
// operation, that the API accepts exactly what the document allows, answers
// only what it declares, and never fails with a 5xx.

const ROOT = resolve(__dirname, '../../../..');
const TOOLS = join(ROOT, 'test/schemathesis');
// A fixed seed keeps CI repeatable; FLOTILLA_SCHEMATHESIS_SEED explores other inputs.
const SEED = process.env.FLOTILLA_SCHEMATHESIS_SEED ?? '20261124';
const MAX_EXAMPLES = process.env.FLOTILLA_SCHEMATHESIS_EXAMPLES ?? '40';

interface FuzzRun {
  exitCode: number | null;
  output: string;
}

function runSchemathesis(st: string, hub: TestHub, workDir: string): Promise<FuzzRun> {
  const args = [
    '--config-file',
    join(TOOLS, 'schemathesis.toml'),
    'run',
    `${hub.url}/api/docs-json`,
    '--header',
    `Authorization: Bearer ${hub.adminToken}`,
    '--checks',
    'all',
    '--phases',
    'examples,coverage,fuzzing,stateful',
    '--max-examples',
    MAX_EXAMPLES,
    '--seed',
    SEED,
    '--generation-allow-x00',
    'true',
    '--generation-database',
    'none',
    '--request-timeout',
    '30',
    '--no-color',
  ];
  return new Promise((done, fail) => {
    // Asynchronous on purpose: the hub under test answers from this same process.
    const child = spawn(st, args, {
      cwd: workDir,
      env: { ...process.env, SCHEMATHESIS_HOOKS: 'hooks', PYTHONPATH: TOOLS, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', fail);
    child.on('close', (exitCode) => done({ exitCode, output }));
  });
}

/** Each finding as one line: the operation, then the check or error that failed. */
function findings(output: string): string[] {
  const found: string[] = [];
  let operation = '';
  for (const line of output.split('\n')) {
    const heading = /^_+ (.+?) _+$/.exec(line);
    if (heading) operation = heading[1];
    else if (/^- ST\d+|^Failed Health Check|^(Network|Server|Schema) Error/.test(line)) found.push(`${operation}: ${line.replace(/^- /, '')}`);
  }
  return found;
}

type Kind = (typeof DATABASE_KINDS)[number][1];
interface Fuzzed {
  hub: TestHub;
  run: FuzzRun;
}

// Both databases are fuzzed at once: schemathesis spends a core on its own and
// the hubs little, so two runs side by side take about the time of one.
const fuzzed = new Map<Kind, Promise<Fuzzed>>();
const hubs: TestHub[] = [];
const workDirs: string[] = [];

async function fuzz(st: string, kind: Kind): Promise<Fuzzed> {
  const workDir = mkdtempSync(join(tmpdir(), 'flotilla-schemathesis-'));
  workDirs.push(workDir);
  const hub = await startTestHub(kind);
  hubs.push(hub);
  return { hub, run: await runSchemathesis(st, hub, workDir) };
}

beforeAll(() => {
  // the first run on a machine installs it from PyPI; later runs reuse the cache
  const st = execFileSync(process.execPath, [join(TOOLS, 'install.mjs')], { encoding: 'utf8' }).trim();
  for (const [, kind] of DATABASE_KINDS) {
    const run = fuzz(st, kind);
    run.catch(() => undefined); // awaited by its test; no unhandled rejection meanwhile
    fuzzed.set(kind, run);
  }
}, 600_000);

afterAll(async () => {
  await Promise.allSettled([...fuzzed.values()]);
  await Promise.all(hubs.map((h) => h.close()));
  for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe.each(DATABASE_KINDS)('schemathesis against a hub on %s', (_label, kind) => {
  it('finds nothing: every phase, every check', async () => {
    const { hub, run } = await fuzzed.get(kind)!;
    const found = findings(run.output);
    // the summary proves each phase ran, so a run that tested nothing cannot pass
    const summary = run.output.slice(run.output.lastIndexOf('Test Phases:'));
    const tail = run.exitCode === 0 ? '' : run.output.slice(-4000);
    expect({ found, exitCode: run.exitCode, tail }).toEqual({ found: [], exitCode: 0, tail: '' });
    for (const phase of ['Examples', 'Coverage', 'Fuzzing', 'Stateful']) expect(summary).toMatch(new RegExp(`✅ ${phase}`));
    const doc = (await hub.call('GET', '/api/docs-json', { token: null })).body as { paths: Record<string, object> };
    const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(run.output).toMatch(new RegExp(`Tested: ${operations}\\b`));
  }, 1_200_000);
});
