import type { Assignment } from '@flotilla/agent-protocol';
import { type KubeObject, type ObjectAddress, ObjectClient } from '@flotilla/kube';
import { randomUUID } from 'node:crypto';
import { adminManager, createTenant } from '../../../../libs/engine/testdata/harness';
import { createLogger } from '../logging/logger';
import { PROJECT_API_VERSION, PROJECT_KIND, type ProjectResource } from '../project/project-resource';
import { installAgent } from '../../test/install';
import { AssignmentWriter } from './assignment-writer';
import { ForeignProjectError, isHubManaged } from './project-ownership';

// A tenant of the spoke may create a Project under the hub's name at any
// moment, also between the agent's read and its write. On the harness API
// server, a client that lets the tenant act right after each read of the
// Project shows that the write never takes the tenant's Project over.

jest.setTimeout(120_000);

/** The real client, with a tenant who acts once right after the agent reads the Project. */
class TenantInBetween extends ObjectClient {
  act?: () => Promise<void>;

  override async getOptional(a: ObjectAddress): Promise<KubeObject | undefined> {
    const found = await super.getOptional(a);
    const act = a.kind === PROJECT_KIND ? this.act : undefined;
    this.act = undefined;
    await act?.();
    return found;
  }
}

describe('AssignmentWriter and a tenant writing at the same time', () => {
  const { manager, connection } = adminManager();
  const admin = manager.client;
  const client = new TenantInBetween(connection);
  const writer = new AssignmentWriter(client, createLogger('error'));
  let ns: string;

  const assignment = (name: string, tag = 'stable'): Assignment => ({
    targetId: randomUUID(), generation: 1, projectName: name, projectNamespace: ns, repository: 'oci://registry.example/web', tag, path: 'project.cue',
    digest: `sha256:${'b'.repeat(64)}`, serviceAccountName: 'deployer', annotations: {}, clusterName: 'spoke', clusterGroup: 'edge',
    intervalSeconds: 600, suspend: true, delete: false, registryCredentials: undefined,
    tenantPolicy: undefined,
  });
  const tenantProject = (name: string): KubeObject => ({
    apiVersion: PROJECT_API_VERSION, kind: PROJECT_KIND, metadata: { name, namespace: ns },
    spec: { serviceAccountName: 'deployer', source: { repository: 'oci://registry.example/tenant' } },
  });
  const read = async (name: string) => (await admin.getOptional({ apiVersion: PROJECT_API_VERSION, kind: PROJECT_KIND, namespace: ns, name })) as ProjectResource | undefined;

  beforeAll(async () => {
    await installAgent(admin);
    ns = await createTenant(admin, 'writer-race');
  });

  afterAll(async () => {
    await admin.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns }).catch(() => undefined);
    await connection.close();
  });

  it('refuses to write when the tenant creates the Project after the agent saw none', async () => {
    client.act = async () => {
      await admin.apply(tenantProject('web'), { dryRun: false, force: true, fieldManager: 'tenant' });
    };
    await expect(writer.apply(assignment('web'))).rejects.toBeInstanceOf(ForeignProjectError);
    const p = await read('web');
    expect(p && isHubManaged(p)).toBe(false);
    expect(p?.spec.source.repository).toBe('oci://registry.example/tenant');
  });

  it('refuses to write when the tenant puts its own Project in place of the hub\'s after the agent read it', async () => {
    expect(await writer.apply(assignment('api'))).toBe('written');
    const hubs = await read('api');
    expect(hubs && isHubManaged(hubs)).toBe(true);

    // the tenant deletes the hub's Project and creates its own under the name
    client.act = async () => {
      await admin.delete({ apiVersion: PROJECT_API_VERSION, kind: PROJECT_KIND, namespace: ns, name: 'api' });
      await admin.apply(tenantProject('api'), { dryRun: false, force: true, fieldManager: 'tenant' });
    };
    await expect(writer.apply({ ...assignment('api'), generation: 2 })).rejects.toBeInstanceOf(ForeignProjectError);
    const p = await read('api');
    expect(p && isHubManaged(p)).toBe(false);
    expect(p?.metadata.uid).not.toBe(hubs?.metadata.uid);
    expect(p?.spec.source.repository).toBe('oci://registry.example/tenant');
  });
});
