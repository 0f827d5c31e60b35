import { randomUUID } from 'node:crypto';

import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

import { CHECKPOINT_SCHEMA } from '../../src/database/checkpoint-schema';
import { latestCheckpointSql } from '../../src/database/checkpoint-tables';
import { TimedPostgresSaver } from '../../src/database/checkpoint-writer';
import { ENTITIES, RunEntity, SessionEntity } from '../../src/database/entities';
import { MIGRATIONS } from '../../src/database/migrations';
import { prepareLanggraphTables } from '../../src/database/prepare-database';
import { PgRunStore } from '../../src/runs/store/pg-run-store';
import { PgSessionStore } from '../../src/runs/store/pg-session-store';
import type { NewRun } from '../../src/runs/store/run-store';
import { createTestDatabase, type TestDatabase } from '../support/infra';

/**
 * A continuing turn's start (PgRunStore.startInSession) returns what the run reads of its thread first — the latest
 * checkpoint, as the official saver's getTuple reads it, and the taint record — in the statement that takes the
 * lease: the tuple made of it is the one getTuple returns.
 */
describe('a continuing turn reads its thread with its start', () => {
  let tdb: TestDatabase;
  let db: DataSource;
  let pool: Pool;
  let runs: PgRunStore;
  let sessions: PgSessionStore;
  let saver: TimedPostgresSaver;
  const tenant = `t-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    tdb = await createTestDatabase('thread_opening');
    db = new DataSource({ type: 'postgres', url: tdb.url, entities: ENTITIES, migrations: MIGRATIONS, poolSize: 4 });
    await db.initialize();
    await db.runMigrations();
    pool = (db.driver as PostgresDriver).master as Pool;
    await prepareLanggraphTables(pool);
    runs = new PgRunStore(db.getRepository(RunEntity), db);
    sessions = new PgSessionStore(db.getRepository(SessionEntity), db);
    saver = new TimedPostgresSaver(pool, CHECKPOINT_SCHEMA);
  });

  afterAll(async () => {
    await db.destroy();
    await tdb.drop();
  });

  const graph = () =>
    new StateGraph(MessagesAnnotation)
      .addNode('answer', () => ({ messages: [new AIMessage('hello')] }))
      .addEdge(START, 'answer')
      .addEdge('answer', END)
      .compile({ checkpointer: saver });
  const newRun = (sessionId: string): NewRun => ({
    id: randomUUID(),
    sessionId,
    tenantId: tenant,
    agent: 'echo',
    mode: 'sync',
    input: { message: 'hi' },
  });

  async function session(): Promise<{ sessionId: string; thread: string }> {
    const sessionId = `s-${randomUUID()}`;
    await sessions.open(tenant, sessionId, 'echo');
    return { sessionId, thread: `${tenant}:${sessionId}` };
  }

  it('returns the latest checkpoint (with its pending writes) and the taint record; the tuple is getTuple’s', async () => {
    const { sessionId, thread } = await session();
    await graph().invoke({ messages: [new HumanMessage('hi')] }, { configurable: { thread_id: thread } });
    await graph().invoke({ messages: [new HumanMessage('again')] }, { configurable: { thread_id: thread } });
    const latest = (await saver.getTuple({ configurable: { thread_id: thread } }))!;
    await saver.putWrites(latest.config, [['messages', [new AIMessage('pending')]]], 'task-1');
    await sessions.recordTaint(tenant, sessionId, randomUUID(), {
      sources: ['tool web_search'],
      digest: new Uint8Array([1, 2, 4]),
      opaque: false,
    });

    const query = jest.spyOn(pool, 'query');
    const started = await runs.startInSession(newRun(sessionId), 60_000);
    expect(query).toHaveBeenCalledTimes(1);
    query.mockRestore();
    expect(started.run.status).toBe('running');
    expect(started.opening!.checkpoint!.checkpoint_id).toBe(latest.checkpoint.id);
    expect(started.opening!.taint).toEqual(await sessions.taintOf(tenant, sessionId));
    expect(started.opening!.taint!.sources).toEqual(['tool web_search']);

    const tuple = await saver.tupleOfRow(thread, started.opening!.checkpoint);
    const official = await saver.getTuple({ configurable: { thread_id: thread, checkpoint_ns: '' } });
    expect(tuple).toEqual(official);
    expect(tuple!.pendingWrites).toHaveLength(1);
    expect(tuple!.checkpoint.channel_values.messages).toHaveLength(4);
  });

  it('reads with the official saver’s own SELECT_SQL (a new library version that changes it fails here)', () => {
    const official: string = saver['SQL_STATEMENTS'].SELECT_SQL;
    expect(latestCheckpointSql('$1')).toBe(`${official}WHERE thread_id = $1 AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`);
  });

  it('a thread with neither: nulls, and no tuple (as getTuple)', async () => {
    const { sessionId, thread } = await session();
    const started = await runs.startInSession(newRun(sessionId), 60_000);
    expect(started.opening).toEqual({ checkpoint: null, taint: null });
    expect(await saver.tupleOfRow(thread, null)).toBeUndefined();
    expect(await saver.getTuple({ configurable: { thread_id: thread } })).toBeUndefined();
  });

  it('a run that waits for the lease reads nothing with its acceptance (it reads its thread when it starts)', async () => {
    const { sessionId, thread } = await session();
    await graph().invoke({ messages: [new HumanMessage('hi')] }, { configurable: { thread_id: thread } });
    const first = await runs.startInSession(newRun(sessionId), 60_000);
    expect(first.run.status).toBe('running');
    const second = await runs.startInSession(newRun(sessionId), 60_000);
    expect(second.run.status).toBe('queued');
    expect(second.opening).toBeUndefined();
  });

  it('another tenant’s session of the same id reads its own thread (empty), never this one', async () => {
    const { sessionId, thread } = await session();
    await graph().invoke({ messages: [new HumanMessage('secret')] }, { configurable: { thread_id: thread } });
    await sessions.open('other-tenant', sessionId, 'echo');
    const started = await runs.startInSession({ ...newRun(sessionId), tenantId: 'other-tenant' }, 60_000);
    expect(started.run.status).toBe('running');
    expect(started.opening).toEqual({ checkpoint: null, taint: null }); // the other tenant's thread is `other-tenant:id`, empty
  });

  it('a queued run started by a worker (leaseAndStart) reads its thread with its start too', async () => {
    const { sessionId, thread } = await session();
    await graph().invoke({ messages: [new HumanMessage('hi')] }, { configurable: { thread_id: thread } });
    await sessions.recordTaint(tenant, sessionId, randomUUID(), { sources: ['knowledge base'], digest: null, opaque: true });
    const queued = await runs.create(newRun(sessionId));
    const query = jest.spyOn(pool, 'query');
    const started = await runs.leaseAndStart(queued.id, 60_000, 3);
    expect(query).toHaveBeenCalledTimes(1);
    query.mockRestore();
    expect(started).toMatchObject({ run: { id: queued.id, status: 'running', attempts: 1 }, hasCheckpoint: true });
    expect(await saver.tupleOfRow(thread, started!.opening!.checkpoint)).toEqual(
      await saver.getTuple({ configurable: { thread_id: thread } }),
    );
    expect(started!.opening!.taint).toMatchObject({ sources: ['knowledge base'], opaque: true });

    // a queued run of a thread with neither
    const other = await session();
    const fresh = await runs.leaseAndStart((await runs.create(newRun(other.sessionId))).id, 60_000, 3);
    expect(fresh).toMatchObject({ hasCheckpoint: false, opening: { checkpoint: null, taint: null } });
  });

  describe('startChecked: the session read, checked and started by one statement', () => {
    const checks = { defaultAgent: 'echo', agents: ['echo', 'other'], refuseScheduled: true };
    const turn = (sessionId: string, tenantId = tenant) => ({
      id: randomUUID(),
      sessionId,
      tenantId,
      mode: 'sync' as const,
      input: { message: 'hi' },
    });
    const runsOf = async (sessionId: string) =>
      (await pool.query('SELECT status FROM runs WHERE session_id = $1', [sessionId])).rows.length;
    const leaseOf = async (sessionId: string) =>
      (await pool.query('SELECT active_run_id FROM sessions WHERE id = $1', [sessionId])).rows[0]?.active_run_id ?? null;

    it('passes: the run started with its thread read, in one statement', async () => {
      const { sessionId, thread } = await session();
      await graph().invoke({ messages: [new HumanMessage('hi')] }, { configurable: { thread_id: thread } });
      const query = jest.spyOn(pool, 'query');
      const out = await runs.startChecked(turn(sessionId), checks, 60_000);
      expect(query).toHaveBeenCalledTimes(1);
      query.mockRestore();
      expect(out).toMatchObject({
        found: true,
        session: { agent: 'echo', resolvedAgent: 'echo', waitingRunId: null, scheduledRunId: null },
      });
      if (!out.found) throw new Error('not found');
      expect(out.started!.run).toMatchObject({ status: 'running', agent: 'echo', sessionId });
      expect(out.started!.opening!.checkpoint).not.toBeNull();
      expect(await leaseOf(sessionId)).toBe(out.started!.run.id);
    });

    it('a session without agent adopts the default; a session of none, or of another tenant, is not found — nothing written', async () => {
      const bare = `s-${randomUUID()}`;
      await pool.query('INSERT INTO sessions (id, tenant_id) VALUES ($1, $2)', [bare, tenant]); // no agent yet
      const adopted = await runs.startChecked(turn(bare), checks, 60_000);
      expect(adopted.found && adopted.started?.run.agent).toBe('echo');
      expect((await pool.query('SELECT agent FROM sessions WHERE id = $1', [bare])).rows[0].agent).toBe('echo');

      const missing = randomUUID();
      expect(await runs.startChecked(turn(missing), checks, 60_000)).toEqual({ found: false });
      expect(await runsOf(missing)).toBe(0);
      const { sessionId } = await session();
      expect(await runs.startChecked(turn(sessionId, 'another-tenant'), checks, 60_000)).toEqual({ found: false });
      expect(await runsOf(sessionId)).toBe(0);
      expect(await leaseOf(sessionId)).toBeNull();
    });

    it('refuses — writing no run and taking no lease — another agent, an unknown agent, a pending decision, a scheduled run', async () => {
      const { sessionId } = await session();
      const refused = async (out: Awaited<ReturnType<PgRunStore['startChecked']>>) => {
        expect(out.found).toBe(true);
        expect(out.found && out.started).toBeUndefined();
        expect(await leaseOf(sessionId)).toBeNull();
      };
      await refused(await runs.startChecked(turn(sessionId), { ...checks, agent: 'other' }, 60_000));
      await refused(await runs.startChecked(turn(sessionId), { ...checks, agents: ['other'] }, 60_000));
      expect(await runsOf(sessionId)).toBe(0);

      // a run paused for a tool decision
      await pool.query(
        `INSERT INTO runs (id, session_id, tenant_id, agent, mode, input, status, attempts) VALUES ($1, $2, $3, 'echo', 'sync', '{}', 'interrupted', 1)`,
        [randomUUID(), sessionId, tenant],
      );
      const waiting = await runs.startChecked(turn(sessionId), checks, 60_000);
      await refused(waiting);
      expect(waiting.found && waiting.session.waitingRunId).toEqual(expect.any(String));
      await pool.query(`UPDATE runs SET finished_at = now() WHERE session_id = $1`, [sessionId]);

      // a run due later
      const later = new Date(Date.now() + 3_600_000).toISOString();
      await pool.query(
        `INSERT INTO runs (id, session_id, tenant_id, agent, mode, input, status, attempts) VALUES ($1, $2, $3, 'echo', 'async', $4, 'queued', 0)`,
        [randomUUID(), sessionId, tenant, JSON.stringify({ start_at: later })],
      );
      const scheduled = await runs.startChecked(turn(sessionId), checks, 60_000);
      await refused(scheduled);
      expect(scheduled.found && scheduled.session.scheduledRunId).toEqual(expect.any(String));
      expect(await runsOf(sessionId)).toBe(2); // the two inserted above, no other
    });
  });
});
