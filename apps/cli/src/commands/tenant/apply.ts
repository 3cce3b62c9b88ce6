// `flotilla tenant apply -f FILE`: each document names a tenant; a missing one
// is created, an existing one is updated with the fields the file gives.
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { examples, seg, type Cli } from '../../cli';
import { CliError } from '../../errors';
import type { Tenant } from '../../hub/types';
import { readObjects, sameValue } from '../project/manifest';

const FIELDS = ['description', 'destinations', 'namespaces', 'serviceAccounts', 'repositories', 'bootstrapRoles'] as const;

export function registerTenantApply(parent: Command, cli: Cli): void {
  const cmd = parent
    .command('apply')
    .description('create or update tenants to match a YAML or JSON file (the body of POST /api/v1/tenants; admin)')
    .requiredOption('-f, --filename <file>', 'YAML or JSON file, - for stdin')
    .action(async (opts: { filename: string }) => {
      const docs = readObjects(opts.filename, () => readFileSync(0, 'utf8'), 'a tenant is an object with a name and its limits', 'see `flotilla tenant apply --help` for an example');
      if (!docs.length) throw new CliError(`${opts.filename} holds no tenant`);
      for (const { value, where } of docs) {
        const unknown = Object.keys(value).filter((k) => k !== 'name' && !(FIELDS as readonly string[]).includes(k));
        if (typeof value.name !== 'string' || !value.name) throw new CliError(`${where}: the tenant has no name`, 'add `name: <tenant name>`');
        if (unknown.length) throw new CliError(`${where}: tenant "${value.name}" has unknown field(s) ${unknown.join(', ')}`, `the fields are: name, ${FIELDS.join(', ')}`);
        cli.io.out.write(`tenant/${value.name} ${await applyOne(cli, value as { name: string } & Record<string, unknown>)}\n`);
      }
    });
  examples(cmd, [
    'flotilla tenant apply -f team-a.yaml',
    '',
    '# team-a.yaml',
    'name: team-a',
    'destinations: {groups: [team-a], labelSelector: {matchLabels: {shared: "true"}}}',
    'namespaces: ["team-a-*"]',
    'serviceAccounts: [deployer]',
    'repositories: [oci://ghcr.io/acme/team-a]',
    'bootstrapRoles: [admin]',
  ]);
}

async function applyOne(cli: Cli, t: { name: string } & Record<string, unknown>): Promise<string> {
  const hub = cli.hub();
  const path = `/tenants/${seg(t.name)}`;
  const current = await hub.find<Tenant>(path);
  if (!current) {
    await hub.request('POST', '/tenants', { body: t });
    return 'created';
  }
  const patch = Object.fromEntries(FIELDS.filter((f) => f in t && !sameValue(t[f], (current as unknown as Record<string, unknown>)[f])).map((f) => [f, t[f]]));
  if (Object.keys(patch).length === 0) return 'unchanged';
  await hub.request('PATCH', path, { body: patch });
  return 'configured';
}
