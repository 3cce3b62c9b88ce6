import { EgressPolicy } from '@flotilla/egress';
import { ObjectClient } from '@flotilla/kube';
import { harnessEnv } from '../../../../test/harness/env';
import type { CredentialsService } from '../credentials/credentials.service';
import type { ClusterEntity } from '../database/entities';
import { openKubeConnection, pushConnection } from './push-connection';
import type { KubeRequestEvent } from './target-runner';

// Never asked: a cluster without push mode, endpoint or stored credentials has no connection.
// the harness API server listens on loopback
const loopbackEgress = new EgressPolicy({ allow: [], deny: [], allowLoopback: true });

const unsealing = { reveal: () => Promise.reject(new Error('must not unseal')) } as unknown as CredentialsService;

describe('pushConnection', () => {
  it('is null without push mode, endpoint or stored credentials', async () => {
    const base = { mode: 'push', server: 'https://127.0.0.1:6443', credentialId: 'c1', caData: null, insecureSkipTlsVerify: false };
    for (const patch of [{ mode: 'pull' }, { server: null }, { credentialId: null }]) {
      expect(await pushConnection(unsealing, { ...base, ...patch } as unknown as ClusterEntity)).toBeNull();
    }
  });
});

describe('openKubeConnection', () => {
  it('reaches the API server with the stored token and reports each request', async () => {
    const kube = harnessEnv().kube;
    const seen: KubeRequestEvent[] = [];
    const conn = openKubeConnection({ server: kube.server, caData: kube.caData, insecureSkipTLSVerify: false, token: kube.admin.token }, loopbackEgress, (e) => seen.push(e));
    try {
      const ns = await new ObjectClient(conn).get({ apiVersion: 'v1', kind: 'Namespace', name: 'default' });
      expect(ns.metadata?.name).toBe('default');
      expect(seen).toContainEqual(expect.objectContaining({ method: 'GET', statusCode: 200 }));
    } finally {
      await conn.close();
    }
  });
});
