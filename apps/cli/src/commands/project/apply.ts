// `flotilla project apply -f FILE`: declarative and idempotent. A missing
// Project is created; an existing one is PATCHed with just the fields that
// differ from the file, and suspended or resumed to match. Fields the file
// leaves out are left as they are on the hub.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { examples, seg, type Cli } from '../../cli';
import { CliError } from '../../errors';
import type { HubClient } from '../../hub/hub-client';
import type { Project } from '../../hub/types';
import { readManifests, sameValue, SPEC_FIELDS, WRITE_ONLY_FIELDS, type ProjectManifest } from './manifest';

export function registerProjectApply(parent: Command, cli: Cli): void {
  const cmd = parent
    .command('apply')
    .description('create or update Projects to match a YAML or JSON file (the body of POST /api/v1/projects)')
    .requiredOption('-f, --filename <file>', 'the file, or - for standard input')
    .action(async (opts: { filename: string }) => {
      const manifests = readManifests(opts.filename, () => readFileSync(0, 'utf8'));
      const hub = cli.hub();
      for (const m of manifests) cli.io.out.write(`project/${m.name} ${await applyOne(hub, m)}\n`);
    });
  examples(cmd, [
    'flotilla project apply -f shop.yaml',
    'cat shop.json | flotilla project apply -f -',
    '',
    '# shop.yaml',
    'name: shop',
    'namespace: shop',
    'source: {repository: oci://ghcr.io/acme/shop, tag: latest}',
    'targets: {groups: [production]}',
    'interval: 10m',
    'annotations: {runtime.timoni.sh/ENV: prod}',
  ]);
}

async function applyOne(hub: HubClient, m: ProjectManifest): Promise<string> {
  const path = `/projects/${seg(m.name)}`;
  const current = await hub.find<Project>(path);
  if (!current) {
    await hub.request('POST', '/projects', { body: m });
    return 'created';
  }
  if (m.tenant !== undefined && m.tenant !== current.tenant) {
    throw new CliError(`project "${m.name}" belongs to tenant "${current.tenant}", not "${String(m.tenant)}": a Project's tenant is fixed at creation`, 'delete and create it again in the other tenant, or fix the file');
  }
  const patch: Record<string, unknown> = {};
  const returned = current as unknown as Record<string, unknown>;
  for (const field of SPEC_FIELDS) {
    if (!(field in m)) continue;
    const wanted = field === 'source' ? withSourceDefaults(m.source) : m[field];
    if (WRITE_ONLY_FIELDS.has(field) || !sameValue(wanted, returned[field])) patch[field] = m[field];
  }
  let changed = false;
  if (Object.keys(patch).length) {
    await hub.request('PATCH', path, { body: patch });
    changed = true;
  }
  if (m.suspend !== undefined && m.suspend !== current.suspend) {
    await hub.request('POST', `${path}/${m.suspend ? 'suspend' : 'resume'}`);
    changed = true;
  }
  return changed ? 'configured' : 'unchanged';
}

function withSourceDefaults(source: unknown): unknown {
  return source && typeof source === 'object' ? { tag: 'latest', path: 'project.cue', ...source } : source;
}
