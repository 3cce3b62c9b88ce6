import type { TestHub } from './hub';

/** Tenants named after cluster groups, each reaching its group, namespace and repository prefix of the same name. */
export async function createTenants(hub: Pick<TestHub, 'call'>, names: string[]): Promise<void> {
  for (const name of names) {
    const body = { name, destinations: { groups: [name] }, namespaces: [`${name}*`], serviceAccounts: ['*'], repositories: [`oci://127.0.0.1:5000/${name}`] };
    const res = await hub.call('POST', '/api/v1/tenants', { body });
    if (res.status !== 201) throw new Error(`tenant ${name}: ${res.status} ${res.text}`);
  }
}
