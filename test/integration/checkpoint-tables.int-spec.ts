import { randomUUID } from 'node:crypto';

import { DataSource } from 'typeorm';

import { SessionBusyException, SessionNotFoundException } from '../../src/core/errors';
import { TimedPostgresSaver } from '../../src/database/checkpoint-writer';
import { ENTITIES, RunEntity, SessionEntity } from '../../src/database/entities';
import { MIGRATIONS } from '../../src/database/migrations';
import { PgRunStore } from '../../src/runs/store/pg-run-store';
import { PgSessionStore } from '../../src/runs/store/pg-session-store';
import { createTestDatabase, type TestDatabase } from '../support/infra';

/**
 * The run store's writes of LangGraph's checkpoint tables (database/checkpoint-tables.ts) on real Postgres: a copy,
 * a session's deletion, a run's rollback and a tenant's reset are all or nothing — a failure injected in the middle
 * (a trigger that raises) leaves nothing half-written — and a state update's lease is decided in one statement.
 */
describe('checkpoint tables, written by the run store in transactions', () => {
  let tdb: TestDatabase;
  let db: DataSource;
  let sessions: PgSessionStore;
  let runs: PgRunStore;
  const tenant = 'acme';

  beforeAll(async () => {
    tdb = await createTestDatabase('checkpoint_tables');
    db = new DataSource({ type: 'postgres', url: tdb.url, entities: ENTITIES, migrations: MIGRATIONS, poolSize: 4 });
    await db.initialize();
    await db.runMigrations();
    const pool = (db.driver as unknown as { master: import('pg').Pool }).master;
    await new TimedPostgresSaver(pool, 'langgraph').setup();
    sessions = new PgSessionStore(db.getRepository(SessionEntity), db);
    runs = new PgRunStore(db.getRepository(RunEntity), db);
    await db.query(`CREATE FUNCTION fail_here() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$`);
  });

  afterAll(async () => {
    await db.destroy();
    await tdb.drop();
  });

  afterEach(async () => {
    for (const [name, table] of [
      ['fail_writes', 'langgraph.checkpoint_writes'],
      ['fail_sessions', 'sessions'],
      ['fail_runs', 'runs'],
    ])
      await db.query(`DROP TRIGGER IF EXISTS ${name} ON ${table}`);
  });

  /** Injects a failure: `table`'s `event` raises from now on (until the test ends). */
  const failOn = (name: string, table: string, event: 'INSERT' | 'DELETE') =>
    db.query(`CREATE TRIGGER ${name} BEFORE ${event} ON ${table} FOR EACH ROW EXECUTE FUNCTION fail_here()`);

  /** A session with two checkpoints (the second written by run `runId`), a blob, a pending write and a taint. */
  async function seedThread(id: string, runId = randomUUID()): Promise<{ thread: string; runId: string }> {
    await sessions.insert(tenant, id, { owner: 'alice' }, 'agent');
    const thread = `${tenant}:${id}`;
    await db.query(
      `INSERT INTO langgraph.checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
       VALUES ($1, '', 'c1', NULL, '{}', '{}'), ($1, '', 'c2', 'c1', '{}', jsonb_build_object('run_id', $2::text))`,
      [thread, runId],
    );
    await db.query(
      `INSERT INTO langgraph.checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob) VALUES ($1, '', 'messages', '1', 'json', '\\x00')`,
      [thread],
    );
    await db.query(
      `INSERT INTO langgraph.checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
       VALUES ($1, '', 'c2', 't', 0, 'messages', 'json', '\\x00')`,
      [thread],
    );
    await db.query(`INSERT INTO thread_taint (tenant_id, session_id, sources, opaque, run_id) VALUES ($1, $2, ARRAY['web'], false, NULL)`, [
      tenant,
      id,
    ]);
    return { thread, runId };
  }

  /** How many rows each table holds for the thread (and the session's row and taint). */
  async function rowsOf(id: string) {
    const thread = `${tenant}:${id}`;
    const n = async (sql: string, params: unknown[]) => Number((await db.query(sql, params))[0].n);
    return {
      session: await n(`SELECT count(*) AS n FROM sessions WHERE tenant_id = $1 AND id = $2`, [tenant, id]),
      taint: await n(`SELECT count(*) AS n FROM thread_taint WHERE tenant_id = $1 AND session_id = $2`, [tenant, id]),
      checkpoints: await n(`SELECT count(*) AS n FROM langgraph.checkpoints WHERE thread_id = $1`, [thread]),
      blobs: await n(`SELECT count(*) AS n FROM langgraph.checkpoint_blobs WHERE thread_id = $1`, [thread]),
      writes: await n(`SELECT count(*) AS n FROM langgraph.checkpoint_writes WHERE thread_id = $1`, [thread]),
    };
  }
  const WHOLE = { session: 1, taint: 1, checkpoints: 2, blobs: 1, writes: 1 };
  const NOTHING = { session: 0, taint: 0, checkpoints: 0, blobs: 0, writes: 0 };

  async function seedRun(sessionId: string, runId: string): Promise<void> {
    await runs.create({ id: runId, sessionId, tenantId: tenant, agent: 'agent', mode: 'async', input: { message: 'hi' } });
    await db.query(`UPDATE runs SET status = 'completed', finished_at = now() WHERE id = $1`, [runId]);
    await db.query(`INSERT INTO messages (tenant_id, session_id, run_id, role, content) VALUES ($1, $2, $3, 'user', 'hi')`, [
      tenant,
      sessionId,
      runId,
    ]);
  }

  it('a copy writes the session, its taint and every checkpoint row; a failure in its last write leaves no copy behind', async () => {
    await seedThread('src');
    expect(await sessions.copy(tenant, 'src', 'copy-ok', { owner: 'alice' }, 'agent')).toBe(true);
    expect(await rowsOf('copy-ok')).toEqual(WHOLE);

    await failOn('fail_writes', 'langgraph.checkpoint_writes', 'INSERT');
    await expect(sessions.copy(tenant, 'src', 'copy-failed', {}, 'agent')).rejects.toThrow(/injected failure/);
    expect(await rowsOf('copy-failed')).toEqual(NOTHING);
    expect(await rowsOf('src')).toEqual(WHOLE);
  });

  it('a session is deleted with its checkpoints, or (a failure after the checkpoints) not at all', async () => {
    await seedThread('del');
    await failOn('fail_sessions', 'sessions', 'DELETE');
    await expect(sessions.delete('del', tenant)).rejects.toThrow(/injected failure/);
    expect(await rowsOf('del')).toEqual(WHOLE);

    await db.query(`DROP TRIGGER fail_sessions ON sessions`);
    await sessions.delete('del', tenant);
    expect(await rowsOf('del')).toEqual(NOTHING);
    await expect(sessions.delete('del', tenant)).rejects.toBeInstanceOf(SessionNotFoundException);
  });

  it("a session whose lease is held is not deleted: SESSION_BUSY, nothing written (the lease decided under the row's lock)", async () => {
    await seedThread('held');
    const holder = randomUUID();
    expect(await sessions.holdForUpdate(tenant, 'held', holder, 60_000)).toBe('held');
    await expect(sessions.delete('held', tenant)).rejects.toBeInstanceOf(SessionBusyException);
    expect(await rowsOf('held')).toEqual(WHOLE);
    await sessions.releaseLease('held', holder);
    await sessions.delete('held', tenant);
    expect(await rowsOf('held')).toEqual(NOTHING);
  });

  it("a run's rollback deletes its checkpoints, messages and row together, or (a failure at the row) nothing", async () => {
    const { runId } = await seedThread('rb');
    await seedRun('rb', runId);
    await failOn('fail_runs', 'runs', 'DELETE');
    await expect(runs.deleteRun(tenant, `${tenant}:rb`, runId)).rejects.toThrow(/injected failure/);
    expect(await rowsOf('rb')).toEqual(WHOLE);
    expect((await db.query(`SELECT count(*)::int AS n FROM messages WHERE run_id = $1`, [runId]))[0].n).toBe(1);

    await db.query(`DROP TRIGGER fail_runs ON runs`);
    expect(await runs.deleteRun(tenant, `${tenant}:rb`, runId)).toBe(true);
    // the run's checkpoint and its write go; the one before it and the blob (shared) stay
    expect(await rowsOf('rb')).toEqual({ ...WHOLE, checkpoints: 1, writes: 0 });
    expect((await db.query(`SELECT count(*)::int AS n FROM messages WHERE run_id = $1`, [runId]))[0].n).toBe(0);
  });

  it("a tenant's reset empties its checkpoints, runs and sessions together, or (a failure at the sessions) nothing", async () => {
    const { runId } = await seedThread('reset');
    await seedRun('reset', runId);
    await failOn('fail_sessions', 'sessions', 'DELETE');
    await expect(sessions.resetTenant(tenant, { checkpoints: true, runs: true, sessions: true })).rejects.toThrow(/injected failure/);
    expect(await rowsOf('reset')).toEqual(WHOLE);
    expect((await db.query(`SELECT count(*)::int AS n FROM runs WHERE id = $1`, [runId]))[0].n).toBe(1);

    await db.query(`DROP TRIGGER fail_sessions ON sessions`);
    await sessions.resetTenant(tenant, { checkpoints: true });
    expect(await rowsOf('reset')).toEqual({ ...WHOLE, checkpoints: 0, blobs: 0, writes: 0 });
    await sessions.resetTenant(tenant, { runs: true, sessions: true });
    expect(await rowsOf('reset')).toEqual(NOTHING);
    expect((await db.query(`SELECT count(*)::int AS n FROM runs WHERE tenant_id = $1`, [tenant]))[0].n).toBe(0);
  });

  it("a state update's lease: taken only when free and no run is unfinished; a run waits for it, then takes the session", async () => {
    await sessions.insert(tenant, 'upd', {}, 'agent');
    const holder = randomUUID();
    expect(await sessions.holdForUpdate(tenant, 'upd', holder, 60_000)).toBe('held');
    expect(await sessions.holdForUpdate(tenant, 'upd', randomUUID(), 60_000)).toBe('busy');
    expect(await sessions.holdForUpdate(tenant, 'nowhere', randomUUID(), 60_000)).toBe('missing');

    const runId = randomUUID();
    await runs.create({ id: runId, sessionId: 'upd', tenantId: tenant, agent: 'agent', mode: 'async', input: { message: 'hi' } });
    expect(await sessions.tryLease('upd', runId, 60_000)).toBe(false); // the update holds the session
    await sessions.releaseLease('upd', holder);
    expect(await sessions.tryLease('upd', runId, 60_000)).toBe(true);
    expect(await sessions.holdForUpdate(tenant, 'upd', randomUUID(), 60_000)).toBe('busy'); // a run holds it now

    await sessions.releaseLease('upd', runId);
    expect(await sessions.holdForUpdate(tenant, 'upd', randomUUID(), 60_000)).toBe('busy'); // the run is still queued/running
  });

  it('of concurrent state updates on one thread, exactly one takes the lease', async () => {
    await sessions.insert(tenant, 'race', {}, 'agent');
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => sessions.holdForUpdate(tenant, 'race', randomUUID(), 60_000)));
    expect(outcomes.filter((o) => o === 'held')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'busy')).toHaveLength(9);
  });
});
