import { createHash, randomBytes } from 'node:crypto';
import { DataSource, Not } from 'typeorm';
import { AGENT_CA_KEY_KIND } from '../agents/agent-ca.repository';
import { openSinkHeader, type SinkBinding } from '../cdevents/sink-header';
import { clusterServerBinding } from './credential-binding';
import { CryptoRepository } from '../crypto/crypto.repository';
import { CredentialEntity, type SealedSinkHeader, type SealedWebhook } from '../database/entities';
import { openWebhook } from '../notifications/webhook-url';
import { DATABASE_KINDS, launch, startTestHub, type TestHub } from '../../test/hub';
import { CredentialsService } from './credentials.service';

const key = () => randomBytes(32).toString('base64');
const SECRET = 'sealed-token-value-for-rotation-test';
const HEADER = 'sink-header-value-for-rotation-test';
const WEBHOOK = 'https://chat.example/hooks/webhook-url-for-rotation-test';

describe.each(DATABASE_KINDS)('credential encryption and key rotation on %s', (_label, kind) => {
  const oldKey = `old:${key()}`;
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub(kind, { encryptionKeys: oldKey });
    const res = await hub.call('POST', '/api/v1/clusters', { body: { name: 'c1', mode: 'push', endpoint: { server: 'https://127.0.0.1:1' }, credentials: { token: SECRET } } });
    expect(res.status).toBe(201);
    // a Project's CDEvents sink header is a credential too: sealed in its row and in the outbox rows that copy it
    const project = await hub.call('POST', '/api/v1/projects', { body: { name: 'sunk', namespace: 'apps', source: { repository: 'oci://127.0.0.1:5000/acme/sunk' }, targets: { names: ['nowhere'] }, cdeventsSink: 'http://127.0.0.1:9/events', cdeventsSinkHeader: { name: 'X-Api-Key', value: HEADER }, notificationWebhook: WEBHOOK } });
    expect(project.status).toBe(201);
  });
  afterAll(() => hub?.close());

  // the cluster's credential; the agent CA's key (made at the hub's first start) is looked at on its own
  const rows = (ds: DataSource) => ds.getRepository(CredentialEntity).find({ where: { kind: Not(AGENT_CA_KEY_KIND) } });
  const BINDING = clusterServerBinding('https://127.0.0.1:1');
  /** Every sealed sink header, with the Project and URL it is bound to: the Project's and the outbox's copies. */
  const boundHeaders = async (ds: DataSource): Promise<Array<{ h: SealedSinkHeader; to: SinkBinding }>> =>
    [
      ...((await ds.query(`SELECT cdevents_sink_header AS h, id::text AS "projectId", cdevents_sink AS "sinkUrl" FROM projects WHERE cdevents_sink_header IS NOT NULL`)) as Array<{ h: SealedSinkHeader } & SinkBinding>),
      ...((await ds.query(`SELECT sink_header AS h, project_id::text AS "projectId", sink_url AS "sinkUrl" FROM cdevent_outbox WHERE sink_header IS NOT NULL`)) as Array<{ h: SealedSinkHeader } & SinkBinding>),
    ].map((r) => ({ h: r.h, to: { projectId: r.projectId, sinkUrl: r.sinkUrl } }));
  const headers = async (ds: DataSource): Promise<SealedSinkHeader[]> => (await boundHeaders(ds)).map((r) => r.h);
  /** The chat webhook, sealed for its Project (its URL is the credential). */
  const webhook = async (ds: DataSource): Promise<{ w: SealedWebhook; projectId: string }> =>
    ((await ds.query(`SELECT notification_webhook AS w, id::text AS "projectId" FROM projects WHERE notification_webhook IS NOT NULL`)) as Array<{ w: SealedWebhook; projectId: string }>)[0];

  it('stores only ciphertext, sealed with the current key', async () => {
    const [row] = await rows(hub.app.get(DataSource));
    expect(row.keyId).toBe('old');
    const sealed = await headers(hub.app.get(DataSource));
    expect(sealed.map((h) => h.keyId)).toEqual(['old', 'old']);
    expect(JSON.stringify(sealed)).not.toContain(HEADER);
    const { w } = await webhook(hub.app.get(DataSource));
    expect(w).toMatchObject({ keyId: 'old', shown: 'https://chat.example/…' });
    expect(JSON.stringify(w)).not.toContain('rotation-test');
    expect(row.envelope).not.toContain(SECRET);
    expect(Buffer.from(row.envelope, 'base64').toString('latin1')).not.toContain(SECRET);
    const opened = await hub.app.get(CredentialsService).reveal<{ auth: { token: string } }>(row.id, BINDING);
    expect(opened?.secret.auth.token).toBe(SECRET);
  });

  it('re-seals under a new current key at start, after which the old key can go', async () => {
    // an older hub stored unkeyed fingerprints: replaced by keyed ones at the next start
    const legacy = `sha256:${createHash('sha256').update('x').digest('hex').slice(0, 16)}`;
    const [before] = await rows(hub.app.get(DataSource));
    await hub.app.get(DataSource).getRepository(CredentialEntity).update({ id: before.id }, { fingerprint: legacy });
    await hub.stop();
    const newKey = `new:${key()}`;
    const rotated = await launch({ ...hub.config, encryptionKeys: `${newKey},${oldKey}` });
    let id: string;
    try {
      const [row] = await rows(rotated.app.get(DataSource));
      expect(row.keyId).toBe('new');
      expect(row.fingerprint).toMatch(/^hmac:[0-9a-f]{16}$/);
      id = row.id;
      expect(rotated.logs.some((l) => l.includes('re-sealed credentials'))).toBe(true);
      const sealed = await headers(rotated.app.get(DataSource));
      expect(sealed.length).toBeGreaterThanOrEqual(2);
      expect(sealed.map((h) => h.keyId)).toEqual(sealed.map(() => 'new'));
      expect((await webhook(rotated.app.get(DataSource))).w).toMatchObject({ keyId: 'new', shown: 'https://chat.example/…' });
      expect(await rotated.app.get(DataSource).getRepository(CredentialEntity).findOneByOrFail({ kind: AGENT_CA_KEY_KIND })).toMatchObject({ keyId: 'new' });
      // nothing left to do: the endpoint reports zero
      const again = await rotated.call('POST', '/api/v1/credentials/rotate');
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ currentKeyId: 'new', resealed: 0 });
    } finally {
      await rotated.stop();
    }
    // a keyring without the key that sealed the data stops the hub at start, naming the key
    await expect(launch({ ...hub.config, encryptionKeys: `other:${key()}` })).rejects.toThrow('key "new" is not in the keyring');
    const onlyNew = await launch({ ...hub.config, encryptionKeys: newKey });
    try {
      const opened = await onlyNew.app.get(CredentialsService).reveal<{ auth: { token: string } }>(id, BINDING);
      expect(opened?.secret.auth.token).toBe(SECRET);
      const crypto = onlyNew.app.get(CryptoRepository);
      for (const { h, to } of await boundHeaders(onlyNew.app.get(DataSource))) expect(openSinkHeader(crypto, h, to)).toBe(HEADER);
      const { w, projectId } = await webhook(onlyNew.app.get(DataSource));
      expect(openWebhook(crypto, w, projectId)).toBe(WEBHOOK);
      // bound to its Project: under another Project's id it does not open
      expect(() => openWebhook(crypto, w, '00000000-0000-4000-8000-000000000000')).toThrow();
      const cluster = await onlyNew.call('GET', '/api/v1/clusters/c1');
      expect(cluster.body.credentials.kind).toBe('token');
      expect((await onlyNew.call('POST', '/api/v1/credentials/rotate', { token: null })).status).toBe(401);
    } finally {
      await onlyNew.stop();
    }
  });
});
