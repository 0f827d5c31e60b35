import { randomUUID } from 'node:crypto';

import { Pool } from 'pg';
import { DataSource } from 'typeorm';

import { MIGRATIONS } from '../../src/database/migrations';
import { IdempotencyPerPrincipal1764030000003 } from '../../src/database/migrations/1764030000003-idempotency-per-principal';
import { createTestDatabase, type TestDatabase } from '../support/infra';

/** Keys recorded per tenant before the migration keep their run; afterwards a key is unique per (tenant, principal). */
describe('idempotency-per-principal migration', () => {
  let db: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    db = await createTestDatabase('idem_migration');
    pool = new Pool({ connectionString: db.url, max: 2 });
  });

  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  const withDataSource = async (migrations: typeof MIGRATIONS, fn: (ds: DataSource) => Promise<unknown>) => {
    const ds = new DataSource({ type: 'postgres', url: db.url, migrations });
    await ds.initialize();
    try {
      await fn(ds);
    } finally {
      await ds.destroy();
    }
  };
  const run = async (key: string, owner: string | null, scope?: string) => {
    const id = randomUUID();
    const session = randomUUID();
    await pool.query(`INSERT INTO sessions (tenant_id, id, agent) VALUES ('acme', $1, 'react')`, [session]);
    const columns = scope === undefined ? '' : ', idempotency_scope';
    const values = scope === undefined ? '' : ', $5';
    await pool.query(
      `INSERT INTO runs (id, session_id, tenant_id, agent, mode, status, input, owner, idempotency_key${columns})
       VALUES ($1, $2, 'acme', 'react', 'sync', 'completed', '{}', $3, $4${values})`,
      [id, session, owner, key, ...(scope === undefined ? [] : [scope])],
    );
    return id;
  };

  it('backfills owned keys to their user, keeps the rest tenant-wide, and lets another principal reuse a key', async () => {
    await withDataSource(MIGRATIONS.slice(0, MIGRATIONS.indexOf(IdempotencyPerPrincipal1764030000003)), (ds) => ds.runMigrations());
    const owned = await run('k-owned', 'alice');
    const unowned = await run('k-unowned', null);
    await withDataSource(MIGRATIONS, (ds) => ds.runMigrations());

    const { rows } = await pool.query(`SELECT id, idempotency_key, idempotency_scope FROM runs ORDER BY idempotency_key`);
    expect(rows).toEqual([
      { id: owned, idempotency_key: 'k-owned', idempotency_scope: 'user:alice' },
      { id: unowned, idempotency_key: 'k-unowned', idempotency_scope: '' },
    ]);
    // another principal may hold the same key; the same principal may not
    const bobs = await run('k-owned', 'bob', 'user:bob');
    await run('k-unowned', null, 'key:env-1');
    await expect(run('k-owned', 'alice', 'user:alice')).rejects.toThrow(/duplicate key/);

    // down: the tenant-wide index is back, the later holder of a shared key keeps its run without the key
    // every migration from this one on is undone, the later ones first (they are the last executed)
    const later = MIGRATIONS.slice(MIGRATIONS.indexOf(IdempotencyPerPrincipal1764030000003));
    await withDataSource(MIGRATIONS, async (ds) => {
      for (let i = 0; i < later.length; i++) await ds.undoLastMigration();
    });
    const after = await pool.query(`SELECT id, idempotency_key FROM runs WHERE id = ANY($1) ORDER BY id`, [[owned, bobs]]);
    expect(after.rows).toEqual(
      [
        { id: owned, idempotency_key: 'k-owned' },
        { id: bobs, idempotency_key: null },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
    await expect(run('k-owned', 'carol')).rejects.toThrow(/duplicate key/);
  });
});
