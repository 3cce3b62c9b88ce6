// `flotilla tenant …`: the teams sharing the hub and what each may use (admins write them).
import type { Command } from 'commander';
import { group, type Cli } from '../../cli';
import { registerTenantApply } from './apply';
import { registerTenantDelete } from './delete';
import { registerTenantGet } from './get';
import { registerTenantList } from './list';

export function registerTenant(program: Command, cli: Cli): void {
  const tenant = group(program, 'tenant', 'the tenants sharing the hub: which clusters, namespaces, service accounts and repositories their Projects may use');
  registerTenantApply(tenant, cli);
  registerTenantList(tenant, cli);
  registerTenantGet(tenant, cli);
  registerTenantDelete(tenant, cli);
}

/** What a 404 on a tenant means to the user, and what to do. */
export const notFound = (name: string) => ({ notFound: `tenant "${name}" not found`, notFoundHint: 'run `flotilla tenant list` to see the tenants' });
