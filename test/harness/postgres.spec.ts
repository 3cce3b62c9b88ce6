import { Client } from 'pg';
import { harnessEnv } from './env';

describe('harness PostgreSQL', () => {
  const { postgres } = harnessEnv();
  const clients: Client[] = [];

  async function connect(): Promise<Client> {
    const client = new Client({ connectionString: postgres.url });
    await client.connect();
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    const setup = await connect();
    await setup.query('CREATE TABLE IF NOT EXISTS lease_probe (id int PRIMARY KEY)');
    await setup.query('TRUNCATE lease_probe');
    await setup.query('INSERT INTO lease_probe VALUES (1), (2)');
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end()));
  });

  it('is a real server: a row locked by one connection is skipped by another', async () => {
    const holder = await connect();
    const other = await connect();
    await holder.query('BEGIN');
    const held = await holder.query('SELECT id FROM lease_probe WHERE id = 1 FOR UPDATE');
    expect(held.rows).toEqual([{ id: 1 }]);

    await other.query('BEGIN');
    const claimed = await other.query('SELECT id FROM lease_probe ORDER BY id FOR UPDATE SKIP LOCKED');
    expect(claimed.rows).toEqual([{ id: 2 }]);
    await other.query('ROLLBACK');

    await holder.query('ROLLBACK');
    const free = await other.query('SELECT id FROM lease_probe ORDER BY id FOR UPDATE SKIP LOCKED');
    expect(free.rows).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('reports the server version it runs', async () => {
    const client = await connect();
    const res = await client.query<{ server_version_num: string }>('SHOW server_version_num');
    expect(Number(res.rows[0].server_version_num)).toBeGreaterThanOrEqual(150000);
  });
});
