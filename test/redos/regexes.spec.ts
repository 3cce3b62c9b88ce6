// Every regular expression in apps/ and libs/, checked for ReDoS by recheck
// (https://makenowjust-labs.github.io/recheck/) on its pure-JavaScript backend:
// no native binary, no Java, no network.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { Diagnostics } from 'recheck';
import { findRegexes, type FoundRegex, sourceFiles } from './regex-sources';

const ROOT = resolve(__dirname, '../..');
const found = findRegexes(ROOT, [...sourceFiles(`${ROOT}/apps`), ...sourceFiles(`${ROOT}/libs`)]);

/** Tests, benchmarks and their fixtures: their expressions read the project's own output, never a request. */
function isTestCode(file: string): boolean {
  return /\.(e2e-)?spec\.tsx?$/.test(file) || file.includes('/bench/') || file.includes('/test/') || file.includes('/testdata/');
}

/**
 * Expressions built from values only known at run time. Each one is listed
 * with why no untrusted text reaches it; anything new must be made constant
 * (so the checker sees it) or be added here with its reason.
 */
const DYNAMIC: { file: string; contains: string; reason: string }[] = [
  // the suites' own names (namespaces, clusters, temp dirs, digests, Node's version) spliced into expected CLI output
  { file: 'apps/agent/src/agent-connected.e2e-spec.ts', contains: '${cluster}', reason: 'test: expected log line naming the test cluster' },
  { file: 'apps/cli/src/cli-bootstrap.e2e-spec.ts', contains: '${ns}', reason: 'test: expected CLI output naming the test namespace' },
  { file: 'apps/cli/src/cli-diff.e2e-spec.ts', contains: '${ns}', reason: 'test: expected CLI output naming the test namespace' },
  { file: 'apps/cli/src/cli-hub.e2e-spec.ts', contains: '${digest', reason: 'test: expected CLI output with the digest the test pushed' },
  { file: 'apps/cli/src/cli-hub.e2e-spec.ts', contains: '${ns}', reason: 'test: expected CLI output naming the test namespace' },
  { file: 'apps/cli/src/cli-local.e2e-spec.ts', contains: '${dir}', reason: 'test: expected CUE error naming the test temp dir' },
  { file: 'apps/cli/src/cli-shape.e2e-spec.ts', contains: 'process.version', reason: "test: the CLI's snapshot name carries this Node's version" },
  { file: 'apps/cli/src/cli-standalone.e2e-spec.ts', contains: '${ns}', reason: 'test: expected CLI output naming the test namespace' },
  { file: 'apps/hub/bench/rss.bench.ts', contains: '${metric}', reason: "bench: reads a metric the bench names from the hub's own /metrics" },
  { file: 'apps/hub/src/openapi/schemathesis.e2e-spec.ts', contains: '${phase}', reason: "test: reads schemathesis' summary for a phase the test names" },
  { file: 'apps/hub/src/openapi/schemathesis.e2e-spec.ts', contains: '${operations}', reason: "test: reads schemathesis' summary for the count the test computed" },
  { file: 'libs/engine/src/instance-prune.spec.ts', contains: '${ns}', reason: 'test: expected error naming the test namespace' },
  { file: 'libs/engine/src/project-reconcile.spec.ts', contains: '${missing}', reason: 'test: expected error naming the namespace the test left out' },
  { file: 'libs/engine/src/project-reconcile.spec.ts', contains: '${ns}', reason: 'test: expected error naming the test namespace' },
  { file: 'libs/kube/src/object-client.spec.ts', contains: '${ns}', reason: 'test: expected error naming the test namespace' },
];

/**
 * Expressions the automaton cannot decide (look-ahead, or counted repetitions
 * too large for it in time), read by hand: each entry says why it is linear.
 */
const UNPROVEN: { file: string; contains: string; reason: string }[] = [
  {
    file: 'apps/hub/src/cdevents/sink-header.dto.ts',
    contains: '^(?!(?:content-type',
    reason: 'look-ahead over a fixed list of names at the start only, then one class of at most 64 characters',
  },
  {
    file: 'apps/hub/src/common/validators.ts',
    contains: '(?=[^/]{1,253}/)',
    reason: 'LABEL_KEY: the look-ahead reads at most 254 characters once, at the start; the rest is IsLabelKey-bounded and alternates on "." and "-" without overlap',
  },
  {
    file: 'apps/hub/src/projects/projects.dto.ts',
    contains: '(?![^\\u0000-\\u001f]*(?:^|\\/)\\.\\.',
    reason: 'PROJECT_FILE: both look-aheads sit at the start, so each scans the path once; 4,000 characters of the shape fuzzing suggests take 0.07 ms',
  },
  {
    file: 'apps/hub/src/common/validators.ts',
    contains: '^https?://',
    reason: 'HTTP_URL: too many counted repetitions (DNS labels, IPv6 groups, port) for the automaton in time; at most 2048 characters, and 2,050 of the shape fuzzing suggests take 0.4 ms',
  },
  {
    file: 'apps/hub/src/common/validators.ts',
    contains: '^(?:https://',
    reason: 'SECRET_URL: HTTP_URL with the scheme fixed per host kind (the two alternatives start with different literals, so no input reaches both); the same counted repetitions, at most 2048 characters, and 2,050 of the shapes that stress HTTP_URL take under 0.02 ms',
  },
];

const at = (r: FoundRegex) => `${r.file}:${r.line}`;

interface Job {
  source: string;
  flags: string;
  /** ms; recheck answers "unknown" past it */
  timeout: number;
}

/** One recheck verdict per job, in order, from plain Node processes (recheck-batch.mjs), one per core. */
async function checkAll(jobs: Job[]): Promise<Diagnostics[]> {
  const lanes = Math.max(1, Math.min(2, availableParallelism()));
  const slices = Array.from({ length: lanes }, (_, lane) => jobs.map((job, i) => ({ job, i })).filter(({ i }) => i % lanes === lane));
  const out: Diagnostics[] = new Array(jobs.length);
  await Promise.all(slices.map(async (slice) => {
    const verdicts = await checkInChild(slice.map(({ job }) => job));
    slice.forEach(({ i }, k) => (out[i] = verdicts[k]));
  }));
  return out;
}

function checkInChild(jobs: Job[]): Promise<Diagnostics[]> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [resolve(__dirname, 'recheck-batch.mjs')], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => (code === 0 ? done(JSON.parse(stdout) as Diagnostics[]) : fail(new Error(`recheck-batch.mjs exited with ${code}: ${stderr}`))));
    child.stdin.end(JSON.stringify(jobs));
  });
}

/** Each distinct pattern once, with every place it is written. */
function distinct(regexes: FoundRegex[]): { source: string; flags: string; places: FoundRegex[] }[] {
  const byPattern = new Map<string, { source: string; flags: string; places: FoundRegex[] }>();
  for (const r of regexes) {
    const key = `${r.flags}/${r.source}`;
    const entry = byPattern.get(key) ?? { source: r.source ?? '', flags: r.flags ?? '', places: [] };
    entry.places.push(r);
    byPattern.set(key, entry);
  }
  return [...byPattern.values()];
}

function describeVerdict(d: Diagnostics): string {
  if (d.status === 'vulnerable') return `${d.complexity.summary}; attack string ${d.attack.pattern}`;
  if (d.status === 'unknown') return `not proven safe (${d.error.kind}${'message' in d.error ? `: ${d.error.message}` : ''})`;
  return 'safe';
}

describe('regular expressions in apps/ and libs/', () => {
  const constant = found.filter((r) => r.unresolved === undefined);

  it('finds the expressions it is meant to check', () => {
    // a few known ones, so a broken extractor cannot pass by finding nothing
    expect(constant.length).toBeGreaterThan(300);
    expect(constant).toContainEqual(expect.objectContaining({ file: 'apps/hub/src/common/validators.ts', source: expect.stringMatching(/^\^https\?:\/\//) }));
    expect(constant).toContainEqual(expect.objectContaining({ file: 'libs/oci/src/registry-client.ts', flags: 'i' }));
  });

  it('knows the expressions that froze the hub and slowed its URL handling for what they were', async () => {
    // the labelSelector check of old (exponential) and the trailing-slash cut of old (quadratic)
    const key = '[A-Za-z0-9][-A-Za-z0-9_./]*';
    const value = '[-A-Za-z0-9_.]*';
    const requirement = [`${key} *(?:==|=|!=) *${value}`, `${key} +(?:in|notin) *\\( *${value}(?: *, *${value})* *\\)`, `! *${key}`, key].join('|');
    const [selector, slashes] = await checkAll([
      { source: `^ *(?:${requirement})(?: *, *(?:${requirement}))* *$`, flags: '', timeout: 60_000 },
      { source: '\\/+$', flags: '', timeout: 60_000 },
    ]);
    expect(selector).toMatchObject({ status: 'vulnerable', complexity: { type: 'exponential' } });
    expect(slashes).toMatchObject({ status: 'vulnerable', complexity: { type: 'polynomial' } });
  }, 120_000);

  it('has a constant pattern, or a listed reason, for every RegExp built at run time', () => {
    const dynamic = found.filter((r) => r.unresolved !== undefined);
    const unexplained = dynamic.filter((r) => !DYNAMIC.some((d) => d.file === r.file && r.expression.includes(d.contains)));
    expect(unexplained.map((r) => `${at(r)}: ${r.expression} (${r.unresolved})`)).toEqual([]);
    const stale = DYNAMIC.filter((d) => !dynamic.some((r) => d.file === r.file && r.expression.includes(d.contains)));
    expect(stale).toEqual([]);
    // only tests and benchmarks build expressions at run time
    expect(dynamic.filter((r) => !isTestCode(r.file)).map(at)).toEqual([]);
  });

  it('has no expression recheck finds vulnerable, or cannot prove safe, in code that reads requests, headers or files', async () => {
    const patterns = distinct(constant.filter((r) => !isTestCode(r.file))).map((p) => ({ ...p, listed: UNPROVEN.some((u) => p.places.some((r) => r.file === u.file) && p.source.includes(u.contains)) }));
    // The automaton's answer is a proof and deterministic (fuzzing took minutes here and changed
    // its verdicts between runs); the timeout is far above what any of these needs on an idle core.
    const verdicts = await checkAll(patterns.map((p) => ({ source: p.source, flags: p.flags, timeout: p.listed ? 5_000 : 60_000 })));
    const problems = patterns.flatMap((p, i) => {
      const d = verdicts[i];
      return d.status === 'vulnerable' || (d.status === 'unknown' && !p.listed) ? [`${p.places.map(at).join(', ')}: /${p.source}/${p.flags}: ${describeVerdict(d)}`] : [];
    });
    expect(problems).toEqual([]);
    // an entry whose expression is gone comes off the list
    expect(UNPROVEN.filter((u) => !constant.some((r) => r.file === u.file && (r.source ?? '').includes(u.contains)))).toEqual([]);
  }, 900_000);

  it('has no exponential expression in tests and benchmarks', async () => {
    // Their text is the project's own output, so polynomial cost is bounded by it; an
    // exponential one could still hang a run. The automaton answers that quickly; where it
    // has no answer in time (long literal expressions) fuzzing would find nothing exponential either.
    const patterns = distinct(constant.filter((r) => isTestCode(r.file)));
    const verdicts = await checkAll(patterns.map((p) => ({ source: p.source, flags: p.flags, timeout: 250 })));
    const problems = patterns.flatMap((p, i) => {
      const d = verdicts[i];
      return d.status === 'vulnerable' && d.complexity.type === 'exponential' ? [`${p.places.map(at).join(', ')}: /${p.source}/${p.flags}: ${describeVerdict(d)}`] : [];
    });
    expect(problems).toEqual([]);
  }, 600_000);
});
