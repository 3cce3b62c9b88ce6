import { DataSource } from 'typeorm';
import { createTempDataDir, createTestDatabase } from '../../test/databases';
import { type DatabaseTarget, dataSourceOptions } from './data-source';

// The checked-in migrations must produce exactly the schema the entities
// describe: generating a migration after running them must yield nothing.
async function pendingSchemaChanges(target: DatabaseTarget): Promise<string[]> {
  const ds = new DataSource(await dataSourceOptions(target));
  await ds.initialize();
  try {
    const applied = await ds.runMigrations();
    expect(applied.length).toBeGreaterThan(0);
    const log = await ds.driver.createSchemaBuilder().log();
    return log.upQueries.map((q) => q.query);
  } finally {
    await ds.destroy();
  }
}

describe('migrations match the entities', () => {
  it('on the harness PostgreSQL', async () => {
    const db = await createTestDatabase();
    try {
      expect(await pendingSchemaChanges({ kind: 'postgres', url: db.url })).toEqual([]);
    } finally {
      await db.drop();
    }
  });

  it('on embedded PGlite', async () => {
    const tmp = createTempDataDir();
    try {
      expect(await pendingSchemaChanges({ kind: 'pglite', dataDir: tmp.dir })).toEqual([]);
    } finally {
      tmp.cleanup();
    }
  });
});
