import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { DataSource } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '../../test/databases';
import { defaultHubConfig, type HubConfig } from '../config/hub-config';
import { CryptoRepository } from '../crypto/crypto.repository';
import { parseKeyring } from '../crypto/keyring';
import { dataSourceOptions } from '../database/data-source';
import { CredentialsRepository } from '../repositories/credentials.repository';
import { AGENT_CA_KEY_KIND, AgentCaRepository } from './agent-ca.repository';
import { AgentCa } from './agent-ca.service';
import { CertificateAuthority } from './certificate-authority';

// Where the agent CA lives, on the harness PostgreSQL: one CA however many
// replicas start at once, its key sealed with the hub's keys and re-sealed
// by key rotation, or the operator's from files.

jest.setTimeout(60_000);

const key = () => randomBytes(32).toString('base64');
const silent = pino({ level: 'silent' });
/** the key the replicas seal with, until the rotation test puts a new one first */
const firstKey = key();

describe('the agent CA', () => {
  let db: TestDatabase;
  const sources: DataSource[] = [];
  const dirs: string[] = [];

  /** a replica's connection to the shared database */
  async function replica(): Promise<DataSource> {
    const ds = new DataSource(await dataSourceOptions({ kind: 'postgres', url: db.url }));
    await ds.initialize();
    sources.push(ds);
    return ds;
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    await (await replica()).runMigrations();
  });

  afterAll(async () => {
    for (const ds of sources) await ds.destroy();
    await db?.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('two replicas starting at once end up with one CA; the loser\'s sealed key is rolled back', async () => {
    const crypto = new CryptoRepository(parseKeyring(`k1:${firstKey}`, 'test'));
    const [a, b] = [new AgentCaRepository(await replica(), crypto), new AgentCaRepository(await replica(), crypto)];
    const [caA, caB] = await Promise.all([CertificateAuthority.create(), CertificateAuthority.create()]);
    const [gotA, gotB] = await Promise.all([a.insertOrLoad(caA), b.insertOrLoad(caB)]);
    expect(gotA).toEqual(gotB);
    expect([caA.certPem, caB.certPem]).toContain(gotA.certPem);
    // and the key is the certificate's
    await expect(CertificateAuthority.load(gotA.certPem, gotA.keyPem)).resolves.toBeInstanceOf(CertificateAuthority);
    const ds = sources[0];
    expect(await ds.query(`SELECT count(*)::int AS n FROM agent_ca`)).toEqual([{ n: 1 }]);
    expect(await ds.query(`SELECT count(*)::int AS n FROM credentials WHERE kind = $1`, [AGENT_CA_KEY_KIND])).toEqual([{ n: 1 }]);
    // the key is stored sealed, never in clear
    const [row] = await ds.query(`SELECT envelope FROM credentials WHERE kind = $1`, [AGENT_CA_KEY_KIND]);
    expect(Buffer.from(row.envelope, 'base64').toString('latin1')).not.toContain('PRIVATE KEY');
    // a replica started later loads the same one
    expect(await new AgentCaRepository(ds, crypto).load()).toEqual(gotA);
  });

  it('key rotation re-seals the CA\'s key; the CA stays the same', async () => {
    const ds = sources[0];
    const before = await new AgentCaRepository(ds, new CryptoRepository(parseKeyring(`k1:${firstKey}`, 'test'))).load();
    expect(before).not.toBeNull();
    // a hub without the key cannot open it, and says which key it needs
    await expect(new AgentCaRepository(ds, new CryptoRepository(parseKeyring(`k9:${key()}`, 'test'))).load()).rejects.toThrow(/key "k1" is not in the keyring/);
    // and a replica started with keys of its own is told what to fix
    const stranger = new AgentCa(new AgentCaRepository(ds, new CryptoRepository(parseKeyring(`k9:${key()}`, 'test'))), defaultHubConfig(), silent);
    await expect(stranger.onModuleInit()).rejects.toThrow(/agent CA: cannot open the agent CA's key .*key "k1" is not in the keyring.*every replica needs the same FLOTILLA_ENCRYPTION_KEYS/);
    const newKey = key();
    const rotated = new CryptoRepository(parseKeyring(`k2:${newKey},k1:${firstKey}`, 'test'));
    // what the hub does at start and on POST /api/v1/credentials/rotate
    const { resealed } = await new CredentialsRepository(ds.manager, rotated).resealBatch(100);
    expect(resealed).toBeGreaterThanOrEqual(1);
    expect(await ds.query(`SELECT key_id FROM credentials WHERE kind = $1`, [AGENT_CA_KEY_KIND])).toEqual([{ key_id: 'k2' }]);
    // the old key can go now
    expect(await new AgentCaRepository(ds, new CryptoRepository(parseKeyring(`k2:${newKey}`, 'test'))).load()).toEqual(before);
  });

  it('uses the operator\'s CA from files, and refuses to start on a bad one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-ca-'));
    dirs.push(dir);
    const own = await CertificateAuthority.create('Operator agent CA');
    writeFileSync(join(dir, 'ca.crt'), own.certPem);
    writeFileSync(join(dir, 'ca.key'), own.keyPem);
    const config = (files: Partial<HubConfig['agents']>): HubConfig => ({ ...defaultHubConfig(), agents: { ...defaultHubConfig().agents, ...files } });
    const repo = new AgentCaRepository(sources[0], new CryptoRepository(parseKeyring(`k1:${key()}`, 'test')));
    const fromFiles = new AgentCa(repo, config({ caCertFile: join(dir, 'ca.crt'), caKeyFile: join(dir, 'ca.key') }), silent);
    await fromFiles.onModuleInit();
    expect(fromFiles.certPem).toBe(own.certPem);
    const other = await CertificateAuthority.create();
    writeFileSync(join(dir, 'other.key'), other.keyPem);
    await expect(new AgentCa(repo, config({ caCertFile: join(dir, 'ca.crt'), caKeyFile: join(dir, 'other.key') }), silent).onModuleInit()).rejects.toThrow(/agent CA: the key is not the key of "CN=Operator agent CA"/);
    await expect(new AgentCa(repo, config({ caCertFile: join(dir, 'missing.crt'), caKeyFile: join(dir, 'ca.key') }), silent).onModuleInit()).rejects.toThrow(/agent CA: cannot read the certificate .*missing\.crt/);
  });
});
