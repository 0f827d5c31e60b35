import { randomUUID } from 'node:crypto';

import { emptyCheckpoint } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';

import { threadIdOf } from '../../src/auth/tenant';
import { CHECKPOINT_SCHEMA } from '../../src/database/checkpoint-schema';
import { MIGRATIONS } from '../../src/database/migrations';
import { TenantSessions1763920000000 } from '../../src/database/migrations/1763920000000-tenant-sessions';
import { createTestDatabase, type TestDatabase } from '../support/infra';

/** A database from before tenancy (uuid sessions, un-scoped checkpoint threads) migrates without losing anything. */
describe('tenant-sessions migration', () => {
  let db: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    db = await createTestDatabase('tenancy_migration');
    pool = new Pool({ connectionString: db.url, max: 2 });
  });

  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  const migrate = async (migrations: typeof MIGRATIONS) => {
    const ds = new DataSource({ type: 'postgres', url: db.url, migrations });
    await ds.initialize();
    try {
      await ds.runMigrations();
    } finally {
      await ds.destroy();
    }
  };

  it('keys sessions by (tenant_id, id), keeps runs and messages attached, renames checkpoint threads', async () => {
    const before = MIGRATIONS.slice(0, MIGRATIONS.indexOf(TenantSessions1763920000000));
    await migrate(before);
    const sessionId = randomUUID();
    const runId = randomUUID();
    await pool.query(`INSERT INTO sessions (id, tenant_id, agent) VALUES ($1, 'default', 'react')`, [sessionId]);
    await pool.query(`INSERT INTO runs (id, session_id, agent, mode, status, input) VALUES ($1, $2, 'react', 'sync', 'completed', '{}')`, [
      runId,
      sessionId,
    ]);
    await pool.query(
      `INSERT INTO messages (session_id, run_id, role, content) VALUES ($1, $2, 'user', 'hi'), ($1, $2, 'assistant', 'hello')`,
      [sessionId, runId],
    );
    const saver = new PostgresSaver(pool, undefined, { schema: CHECKPOINT_SCHEMA });
    await saver.setup();
    await saver.put(
      { configurable: { thread_id: sessionId, checkpoint_ns: '' } },
      emptyCheckpoint(),
      { source: 'input', step: -1, parents: {} },
      {},
    );

    await migrate(MIGRATIONS);

    const { rows } = await pool.query(
      `SELECT s.tenant_id, s.id, (SELECT count(*)::int FROM runs r WHERE r.tenant_id = s.tenant_id AND r.session_id = s.id) AS runs,
              (SELECT count(*)::int FROM messages m WHERE m.tenant_id = s.tenant_id AND m.session_id = s.id) AS messages
         FROM sessions s`,
    );
    expect(rows).toEqual([{ tenant_id: 'default', id: sessionId, runs: 1, messages: 2 }]);
    expect(await saver.getTuple({ configurable: { thread_id: threadIdOf('default', sessionId) } })).toBeDefined();
    expect(await saver.getTuple({ configurable: { thread_id: sessionId } })).toBeUndefined();

    // the same client-chosen id in two tenants; ids outside the pattern refused by the database too
    await pool.query(
      `INSERT INTO sessions (tenant_id, id, agent) VALUES ('acme', 'user-session-123', 'react'), ('globex', 'user-session-123', 'react')`,
    );
    await expect(pool.query(`INSERT INTO sessions (tenant_id, id, agent) VALUES ('acme', 'user-session-123', 'react')`)).rejects.toThrow(
      /duplicate key/,
    );
    await expect(pool.query(`INSERT INTO sessions (tenant_id, id, agent) VALUES ('acme', 'no spaces', 'react')`)).rejects.toThrow(
      /sessions_id_format/,
    );
    // a run cannot point at another tenant's session; deleting a session takes its runs and messages along
    await expect(
      pool.query(
        `INSERT INTO runs (id, tenant_id, session_id, agent, mode, status, input) VALUES ($1, 'acme', $2, 'react', 'sync', 'queued', '{}')`,
        [randomUUID(), sessionId],
      ),
    ).rejects.toThrow(/runs_session_fk/);
    await pool.query(`DELETE FROM sessions WHERE id = $1`, [sessionId]);
    const left = await pool.query(`SELECT (SELECT count(*) FROM runs)::int AS r, (SELECT count(*) FROM messages)::int AS m`);
    expect(left.rows[0]).toEqual({ r: 0, m: 0 });
  });
});
