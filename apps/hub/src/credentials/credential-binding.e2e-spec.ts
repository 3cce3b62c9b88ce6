import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { LEGACY_SINK_HEADER_AAD, openSinkHeader } from '../cdevents/sink-header';
import { CryptoRepository, DecryptionError } from '../crypto/crypto.repository';
import type { SealedSinkHeader } from '../database/entities';
import { launch, startTestHub, type TestHub } from '../../test/hub';
import { clusterServerBinding, CredentialBindingError, legacyCredentialAad } from './credential-binding';
import { CredentialsService } from './credentials.service';

const key = () => randomBytes(32).toString('base64');
const SERVER_A = 'https://127.0.0.1:1';
const SERVER_B = 'https://127.0.0.1:2';

/** Someone who can write the database, but holds no key: moves sealed values between rows. */
describe('a sealed credential opens only for its row and endpoint (harness PostgreSQL)', () => {
  const oldKey = `old:${key()}`;
  let hub: TestHub;
  const credentialOf = async (ds: DataSource, cluster: string): Promise<string> =>
    ((await ds.query(`SELECT credential_id::text AS id FROM clusters WHERE name = $1`, [cluster])) as Array<{ id: string }>)[0].id;
  const headerOf = async (ds: DataSource, project: string): Promise<{ h: SealedSinkHeader; projectId: string; sinkUrl: string }> =>
    ((await ds.query(`SELECT cdevents_sink_header AS h, id::text AS "projectId", cdevents_sink AS "sinkUrl" FROM projects WHERE name = $1`, [project])) as Array<{ h: SealedSinkHeader; projectId: string; sinkUrl: string }>)[0];

  beforeAll(async () => {
    hub = await startTestHub('postgres', { encryptionKeys: oldKey });
    for (const [name, server, token] of [
      ['a', SERVER_A, 'token-of-a'],
      ['b', SERVER_B, 'token-of-b'],
    ]) {
      expect((await hub.call('POST', '/api/v1/clusters', { body: { name, mode: 'push', endpoint: { server }, credentials: { token } } })).status).toBe(201);
    }
    for (const [name, sink] of [
      ['pa', 'http://127.0.0.1:9/a'],
      ['pb', 'http://127.0.0.1:9/b'],
    ]) {
      const body = { name, namespace: 'apps', source: { repository: 'oci://127.0.0.1:5000/acme/app' }, targets: { names: ['nowhere'] }, cdeventsSink: sink, cdeventsSinkHeader: { name: 'X-Api-Key', value: `key-of-${name}` } };
      expect((await hub.call('POST', '/api/v1/projects', { body })).status).toBe(201);
    }
  });
  afterAll(() => hub?.close());

  it('a credential envelope copied in SQL to another row does not open there, nor for another endpoint', async () => {
    const ds = hub.app.get(DataSource);
    const credentials = hub.app.get(CredentialsService);
    const [a, b] = [await credentialOf(ds, 'a'), await credentialOf(ds, 'b')];
    expect((await credentials.reveal<{ auth: { token: string } }>(a, clusterServerBinding(SERVER_A)))?.secret.auth.token).toBe('token-of-a');
    // cluster a's credential asked for cluster b's server: refused before any decryption
    await expect(credentials.reveal(a, clusterServerBinding(SERVER_B))).rejects.toThrow(CredentialBindingError);
    // a's sealed columns, binding included, copied over b's row
    await ds.query(`UPDATE credentials t SET kind = s.kind, key_id = s.key_id, envelope = s.envelope, bound_to = s.bound_to FROM credentials s WHERE s.id = $1 AND t.id = $2`, [a, b]);
    await expect(credentials.reveal(b, clusterServerBinding(SERVER_A))).rejects.toThrow(DecryptionError);
    // a's server moved in SQL, its binding column with it: the sealed value still names the old one
    await ds.query(`UPDATE clusters SET server = $1 WHERE name = 'a'`, [SERVER_B]);
    await ds.query(`UPDATE credentials SET bound_to = $1 WHERE id = $2`, [clusterServerBinding(SERVER_B), a]);
    await expect(credentials.reveal(a, clusterServerBinding(SERVER_B))).rejects.toThrow(DecryptionError);
    await ds.query(`UPDATE credentials SET bound_to = $1 WHERE id = $2`, [clusterServerBinding(SERVER_A), a]);
    await ds.query(`UPDATE clusters SET server = $1 WHERE name = 'a'`, [SERVER_A]);
  });

  it('a sink header copied in SQL to another Project, or under another URL, does not open', async () => {
    const ds = hub.app.get(DataSource);
    const crypto = hub.app.get(CryptoRepository);
    const pa = await headerOf(ds, 'pa');
    const pb = await headerOf(ds, 'pb');
    expect(openSinkHeader(crypto, pa.h, pa)).toBe('key-of-pa');
    expect(() => openSinkHeader(crypto, pa.h, { projectId: pb.projectId, sinkUrl: pa.sinkUrl })).toThrow(DecryptionError);
    expect(() => openSinkHeader(crypto, pa.h, { projectId: pa.projectId, sinkUrl: pb.sinkUrl })).toThrow(DecryptionError);
  });

  it('rotation keeps the binding; values sealed before bindings are bound to their owner at start', async () => {
    const ds = hub.app.get(DataSource);
    const crypto = hub.app.get(CryptoRepository);
    const a = await credentialOf(ds, 'a');
    const b = await credentialOf(ds, 'b');
    // b as an older hub left it: sealed with the kind alone, no binding; pb's header likewise
    const legacy = crypto.seal(JSON.stringify({ auth: { token: 'token-of-b' } }), legacyCredentialAad('token'));
    await ds.query(`UPDATE credentials SET kind = 'token', key_id = $1, envelope = $2, bound_to = NULL WHERE id = $3`, [legacy.keyId, legacy.envelope, b]);
    const legacyHeader = { name: 'X-Api-Key', ...crypto.seal('key-of-pb', LEGACY_SINK_HEADER_AAD) };
    await ds.query(`UPDATE projects SET cdevents_sink_header = $1::jsonb WHERE name = 'pb'`, [JSON.stringify(legacyHeader)]);
    await expect(hub.app.get(CredentialsService).reveal(b, clusterServerBinding(SERVER_B))).rejects.toThrow(/not bound yet/);

    await hub.stop();
    const rotated = await launch({ ...hub.config, encryptionKeys: `new:${key()},${oldKey}` });
    try {
      const rds = rotated.app.get(DataSource);
      const credentials = rotated.app.get(CredentialsService);
      const rows = (await rds.query(`SELECT id::text AS id, key_id AS "keyId", bound_to AS "boundTo" FROM credentials WHERE id = ANY($1::uuid[]) ORDER BY id`, [[a, b]])) as Array<{ id: string; keyId: string; boundTo: string }>;
      expect(new Map(rows.map((r) => [r.id, r]))).toEqual(
        new Map([
          [a, { id: a, keyId: 'new', boundTo: clusterServerBinding(SERVER_A) }],
          [b, { id: b, keyId: 'new', boundTo: clusterServerBinding(SERVER_B) }],
        ]),
      );
      expect((await credentials.reveal<{ auth: { token: string } }>(a, clusterServerBinding(SERVER_A)))?.secret.auth.token).toBe('token-of-a');
      expect((await credentials.reveal<{ auth: { token: string } }>(b, clusterServerBinding(SERVER_B)))?.secret.auth.token).toBe('token-of-b');
      // still bound after rotation: a's value refuses b's row and b's endpoint
      await expect(credentials.reveal(a, clusterServerBinding(SERVER_B))).rejects.toThrow(CredentialBindingError);
      await rds.query(`UPDATE credentials t SET key_id = s.key_id, envelope = s.envelope, bound_to = s.bound_to FROM credentials s WHERE s.id = $1 AND t.id = $2`, [a, b]);
      await expect(credentials.reveal(b, clusterServerBinding(SERVER_A))).rejects.toThrow(DecryptionError);
      const rcrypto = rotated.app.get(CryptoRepository);
      const pb = await headerOf(rds, 'pb');
      expect(pb.h).toMatchObject({ keyId: 'new', bound: true });
      expect(openSinkHeader(rcrypto, pb.h, pb)).toBe('key-of-pb');
      const pa = await headerOf(rds, 'pa');
      expect(() => openSinkHeader(rcrypto, pa.h, { projectId: pb.projectId, sinkUrl: pa.sinkUrl })).toThrow(DecryptionError);
    } finally {
      await rotated.stop();
    }
  });
});
