// Test helpers for specs that talk to the harness API server (one namespace per test).
import { randomBytes } from 'node:crypto';
import { harnessEnv } from '../../../test/harness/env';
import { UNPULLABLE_IMAGE } from '../../../test/harness/kube-nodes';
import { ClusterConnection, type ConnectionOptions } from '../src/connection';
import { ObjectClient } from '../src/object-client';
import { ResourceManager } from '../src/resource-manager';
import type { KubeObject } from '../src/types';
import { eventually } from './eventually';

export function adminConnection(options: Partial<ConnectionOptions> = {}): ClusterConnection {
  const kube = harnessEnv().kube;
  return ClusterConnection.create({ server: kube.server, caData: kube.caData, token: kube.admin.token }, options);
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

/**
 * Creates a fresh namespace for one test, and returns once the controller
 * manager has furnished it (the `default` ServiceAccount Pods need, and the
 * `kube-root-ca.crt` ConfigMap), so nothing appears in it behind the test's back.
 */
export async function createNamespace(client: ObjectClient, prefix: string): Promise<string> {
  const name = uniqueName(prefix);
  await client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { dryRun: false, force: true, fieldManager: 'flotilla-test' });
  await eventually(`namespace ${name} to get its default ServiceAccount and kube-root-ca.crt`, async () =>
    (await client.getOptional({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: name, name: 'default' })) &&
    (await client.getOptional({ apiVersion: 'v1', kind: 'ConfigMap', namespace: name, name: 'kube-root-ca.crt' })),
  );
  return name;
}

export function configMap(namespace: string, name: string, data: Record<string, string>, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ...extra }, data };
}

export { UNPULLABLE_IMAGE };

/** Never ready by default (see UNPULLABLE_IMAGE); give any other image to let the controllers roll it out. */
export function deployment(namespace: string, name: string, image = UNPULLABLE_IMAGE): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image }] } },
    },
  };
}

export function job(namespace: string, name: string, image: string, annotations: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace, annotations },
    spec: {
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image }] } },
    },
  };
}

export interface TestCluster {
  connection: ClusterConnection;
  manager: ResourceManager;
  client: ObjectClient;
}

export function testCluster(): TestCluster {
  const connection = adminConnection();
  const manager = new ResourceManager(connection);
  return { connection, manager, client: manager.client };
}
