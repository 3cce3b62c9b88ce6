// `flotilla token …`: API tokens (admin): global, or for one tenant.
import type { Command } from 'commander';
import { examples, group, seg, withOutput, type Cli } from '../../cli';
import type { ApiToken } from '../../hub/types';
import { printData, printTable } from '../../output/format';
import { ago } from '../../output/time';

export function registerToken(program: Command, cli: Cli): void {
  const token = group(program, 'token', 'API tokens for people and automation (admin)');
  const create = token
    .command('create <name>')
    .description('issue a token; it is printed once')
    .requiredOption('--role <role>', 'viewer, operator, or admin (global only)')
    .option('--tenant <name>', 'act only in this tenant (viewer or operator)')
    .option('--expires-at <time>', 'ISO 8601 time it stops working')
    .action(async (name: string, o: { role: string; tenant?: string; expiresAt?: string }) => {
      const t = (await cli.hub().request<ApiToken & { token: string }>('POST', '/tokens', { body: { name, role: o.role, tenant: o.tenant, expiresAt: o.expiresAt } })).body;
      cli.io.err.write(`token/${t.name} created (${t.tenant ? `${t.role} in tenant ${t.tenant}` : `global ${t.role}`}); it is shown only now:\n`);
      cli.io.out.write(`${t.token}\n`);
    });
  examples(create, ['flotilla token create ci-team-a --role operator --tenant team-a', 'flotilla token create dashboards --role viewer --expires-at 2027-06-30T00:00:00Z']);
  const list = withOutput(token.command('list').alias('ls').description('list tokens (never their values)')).action(async (opts: { output?: string }) => {
    const format = cli.format(opts);
    const items = await cli.hub().all<ApiToken>('/tokens');
    if (printData(cli.io, format, items)) return;
    const now = cli.io.now();
    printTable(
      cli.io,
      ['ID', 'NAME', 'ROLE', 'TENANT', 'CREATED', 'EXPIRES', 'REVOKED'],
      items.map((t) => [t.id, t.name, t.role, t.tenant ?? '(global)', ago(t.createdAt, now), t.expiresAt ?? 'never', t.revokedAt ? ago(t.revokedAt, now) : '-']),
      'no tokens',
    );
  });
  examples(list, ['flotilla token list']);
  const revoke = token
    .command('revoke <id>')
    .description('revoke a token by id; it stops working at once')
    .action(async (id: string) => {
      await cli.hub().request('DELETE', `/tokens/${seg(id)}`, { notFound: `token ${id} not found`, notFoundHint: 'run `flotilla token list` for the ids' });
      cli.io.out.write(`token/${id} revoked\n`);
    });
  examples(revoke, ['flotilla token revoke 3f0c…']);
}
