// Project files for `apply -f`: YAML (several documents allowed) or JSON,
// each document the body of POST /api/v1/projects.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { CliError, messageOf } from '../../errors';

export const SPEC_FIELDS = [
  'namespace',
  'source',
  'serviceAccountName',
  'targets',
  'rollout',
  'interval',
  'annotations',
  'registryCredentials',
  'cdeventsSink',
  'cdeventsSinkHeader',
  'notificationWebhook',
  'targetRemoval',
  'overwriteOwnership',
  'bootstrap',
] as const;
/** Sealed on the hub and never returned whole: they cannot be compared, so a file that has them always sends them. */
export const WRITE_ONLY_FIELDS: ReadonlySet<string> = new Set(['registryCredentials', 'cdeventsSinkHeader', 'notificationWebhook']);
/** Every field of the body of POST /api/v1/projects (the CLI-against-hub suite holds this to the hub's OpenAPI document). */
export const PROJECT_FILE_FIELDS: readonly string[] = ['name', 'tenant', 'suspend', ...SPEC_FIELDS];
const KNOWN = new Set<string>(PROJECT_FILE_FIELDS);

export interface ProjectManifest {
  name: string;
  suspend?: boolean;
  [field: string]: unknown;
}

export function readManifests(path: string, stdin: () => string): ProjectManifest[] {
  const out: ProjectManifest[] = [];
  for (const { value, where } of readObjects(path, stdin, 'a Project is an object with name, namespace and source', 'see `flotilla project apply --help` for an example')) {
    const m = value as ProjectManifest;
    if (typeof m.name !== 'string' || !m.name) throw new CliError(`${where}: the Project has no name`, 'add `name: <project name>`');
    const unknown = Object.keys(m).filter((k) => !KNOWN.has(k));
    if (unknown.length) throw new CliError(`${where}: project "${m.name}" has unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`, `the fields are: ${[...KNOWN].join(', ')}`);
    out.push(m);
  }
  if (!out.length) throw new CliError(`${path} holds no Project`);
  return out;
}

/** The objects of a YAML (several documents allowed) or JSON file, or of stdin for `-`, each with where it was read. */
export function readObjects(path: string, stdin: () => string, notObject: string, hint: string): Array<{ value: Record<string, unknown>; where: string }> {
  let text: string;
  try {
    text = path === '-' ? stdin() : readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${path}: ${messageOf(err)}`, 'give the path of a YAML or JSON file with -f');
  }
  const docs = parseAllDocuments(text);
  const out: Array<{ value: Record<string, unknown>; where: string }> = [];
  for (const [i, doc] of (Array.isArray(docs) ? docs : [docs]).entries()) {
    const where = `${path}${Array.isArray(docs) && docs.length > 1 ? ` (document ${i + 1})` : ''}`;
    const err = doc.errors[0];
    if (err) {
      const line = err.linePos?.[0];
      throw new CliError(`${path}${line ? `:${line.line}:${line.col}` : ''}: not valid YAML or JSON: ${err.message.split('\n')[0]}`);
    }
    const value = doc.toJS() as unknown;
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || Array.isArray(value)) throw new CliError(`${where}: ${notObject}`, hint);
    out.push({ value: value as Record<string, unknown>, where });
  }
  return out;
}

/** Equal once empty values are left out and keys sorted: the hub fills in empty lists and nulls. */
export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(normalize(a)) === JSON.stringify(normalize(b));
}

function normalize(v: unknown): unknown {
  if (Array.isArray(v)) {
    const items = v.map(normalize);
    return items.length ? items : undefined;
  }
  if (v && typeof v === 'object') {
    const entries = Object.entries(v)
      .map(([k, x]) => [k, normalize(x)] as const)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return entries.length ? Object.fromEntries(entries) : undefined;
  }
  return v === null ? undefined : v;
}
