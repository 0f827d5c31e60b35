import { randomUUID } from 'node:crypto';

import { AIMessage, HumanMessage } from '@langchain/core/messages';

import { latestCheckpointSql } from '../../src/database/checkpoint-tables';
import { PgRunStore } from '../../src/runs/store/pg-run-store';
import type { NewRun } from '../../src/runs/store/run-store';
import { useRunStores } from '../support/run-stores';

/**
 * A continuing turn's start (PgRunStore.startInSession) returns what the run reads of its thread first — the latest
 * checkpoint, as the official saver's getTuple reads it, and the taint record — in the statement that takes the
 * lease: the tuple made of it is the one getTuple returns.
 */
describe('a continuing turn reads its thread with its start', () => {
  const stores = useRunStores('thread_opening');
  const tenant = `t-${randomUUID().slice(0, 8)}`;

  const graph = () => stores.helloGraph();
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
    await stores.sessions.open(tenant, sessionId, 'echo');
    return { sessionId, thread: `${tenant}:${sessionId}` };
  }

  it('returns the latest checkpoint (with its pending writes) and the taint record; the tuple is getTuple’s', async () => {
    const { sessionId, thread } = await session();
    await graph().invoke({ messages: [new HumanMessage('hi')] }, { configurable: { thread_id: thread } });
    await graph().invoke({ messages: [new HumanMessage('again')] }, { configurable: { thread_id: thread } });
    const latest = (await stores.saver.getTuple({ configurable: { thread_id: thread } }))!;
    await stores.saver.putWrites(latest.config, [['messages', [new AIMessage('pending')]]], 'task-1');
    await stores.sessions.recordTaint(tenant, sessionId, randomUUID(), {
      sources: ['tool web_search'],
      digest: new Uint8Array([1, 2, 4]),
      opaque: false,
    });

    const query = jest.spyOn(stores.pool, 'query');
    const started = await stores.runs.startInSession(newRun(sessionId), 60_000);
    expect(query).toHaveBeenCalledTimes(1);
    query.mockRestore();
    expect(started.run.status).toBe('running');
    expect(started.opening!.checkpoint!.checkpoint_id).toBe(latest.checkpoint.id);
    expect(started.opening!.taint).toEqual(await stores.sessions.taintOf(tenant, sessionId));
    expect(started.opening!.taint!.sources).toEqual(['tool web_search']);

    const tuple = await stores.saver.tupleOfRow(thread, started.opening!.checkpoint);
    const official = await stores.saver.getTuple({ configurable: { thread_id: thread, checkpoint_ns: '' } });
    expect(tuple).toEqual(official);
    expect(tuple!.pendingWrites).toHaveLength(1);
    expect(tuple!.checkpoint.channel_values.messages).toHaveLength(4);
  });

  it('reads with the official saver’s own SELECT_SQL (a new library version that changes it fails here)', () => {
    const official: string = stores.saver['SQL_STATEMENTS'].SELECT_SQL;
    expect(latestCheckpointSql('$1')).toBe(`${official}WHERE thread_id = $1 AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`);
  });

  it('a thread with neither: nulls, and no tuple (as getTuple)', async () => {
    const { sessionId, thread } = await session();
    const started = await stores.runs.startInSession(newRun(sessionId), 60_000);
    expect(started.opening).toEqual({ checkpoint: null, taint: null });
    expect(await stores.saver.tupleOfRow(thread, null)).toBeUndefined();
    expect(await stores.saver.getTuple({ configurable: { thread_id: thread } })).toBeUndefined();
  });

  it('a run that waits for the lease reads nothing with its acceptance (it reads its thread when it starts)', async () => {
    const { sessionId, thread } = await session();
    await graph().invoke({ messages: [new HumanMessage('hi')] }, { configurable: { thread_id: thread } });
    const first = await stores.runs.startInSession(newRun(sessionId), 60_000);
    expect(first.run.status).toBe('running');
    const second = await stores.runs.startInSession(newRun(sessionId), 60_000);
    expect(second.run.status).toBe('queued');
    expect(second.opening).toBeUndefined();
  });

  it('another tenant’s session of the same id reads its own thread (empty), never this one', async () => {
    const { sessionId, thread } = await session();
    await graph().invoke({ messages: [new HumanMessage('secret')] }, { configurable: { thread_id: thread } });
    await stores.sessions.open('other-tenant', sessionId, 'echo');
    const started = await stores.runs.startInSession({ ...newRun(sessionId), tenantId: 'other-tenant' }, 60_000);
    expect(started.run.status).toBe('running');
    expect(started.opening).toEqual({ checkpoint: null, taint: null }); // the other tenant's thread is `other-tenant:id`, empty
  });

  it('a queued run started by a worker (leaseAndStart) reads its thread with its start too', async () => {
    const { sessionId, thread } = await session();
    await graph().invoke({ messages: [new HumanMessage('hi')] }, { configurable: { thread_id: thread } });
    await stores.sessions.recordTaint(tenant, sessionId, randomUUID(), { sources: ['knowledge base'], digest: null, opaque: true });
    const queued = await stores.runs.create(newRun(sessionId));
    const query = jest.spyOn(stores.pool, 'query');
    const started = await stores.runs.leaseAndStart(queued.id, 60_000, 3);
    expect(query).toHaveBeenCalledTimes(1);
    query.mockRestore();
    expect(started).toMatchObject({ run: { id: queued.id, status: 'running', attempts: 1 }, hasCheckpoint: true });
    expect(await stores.saver.tupleOfRow(thread, started!.opening!.checkpoint)).toEqual(
      await stores.saver.getTuple({ configurable: { thread_id: thread } }),
    );
    expect(started!.opening!.taint).toMatchObject({ sources: ['knowledge base'], opaque: true });

    // a queued run of a thread with neither
    const other = await session();
    const fresh = await stores.runs.leaseAndStart((await stores.runs.create(newRun(other.sessionId))).id, 60_000, 3);
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
      (await stores.pool.query('SELECT status FROM runs WHERE session_id = $1', [sessionId])).rows.length;
    const leaseOf = async (sessionId: string) =>
      (await stores.pool.query('SELECT active_run_id FROM sessions WHERE id = $1', [sessionId])).rows[0]?.active_run_id ?? null;

    it('passes: the run started with its thread read, in one statement', async () => {
      const { sessionId, thread } = await session();
      await graph().invoke({ messages: [new HumanMessage('hi')] }, { configurable: { thread_id: thread } });
      const query = jest.spyOn(stores.pool, 'query');
      const out = await stores.runs.startChecked(turn(sessionId), checks, 60_000);
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
      await stores.pool.query('INSERT INTO sessions (id, tenant_id) VALUES ($1, $2)', [bare, tenant]); // no agent yet
      const adopted = await stores.runs.startChecked(turn(bare), checks, 60_000);
      expect(adopted.found && adopted.started?.run.agent).toBe('echo');
      expect((await stores.pool.query('SELECT agent FROM sessions WHERE id = $1', [bare])).rows[0].agent).toBe('echo');

      const missing = randomUUID();
      expect(await stores.runs.startChecked(turn(missing), checks, 60_000)).toEqual({ found: false });
      expect(await runsOf(missing)).toBe(0);
      const { sessionId } = await session();
      expect(await stores.runs.startChecked(turn(sessionId, 'another-tenant'), checks, 60_000)).toEqual({ found: false });
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
      await refused(await stores.runs.startChecked(turn(sessionId), { ...checks, agent: 'other' }, 60_000));
      await refused(await stores.runs.startChecked(turn(sessionId), { ...checks, agents: ['other'] }, 60_000));
      expect(await runsOf(sessionId)).toBe(0);

      // a run paused for a tool decision
      await stores.pool.query(
        `INSERT INTO runs (id, session_id, tenant_id, agent, mode, input, status, attempts) VALUES ($1, $2, $3, 'echo', 'sync', '{}', 'interrupted', 1)`,
        [randomUUID(), sessionId, tenant],
      );
      const waiting = await stores.runs.startChecked(turn(sessionId), checks, 60_000);
      await refused(waiting);
      expect(waiting.found && waiting.session.waitingRunId).toEqual(expect.any(String));
      await stores.pool.query(`UPDATE runs SET finished_at = now() WHERE session_id = $1`, [sessionId]);

      // a run due later
      const later = new Date(Date.now() + 3_600_000).toISOString();
      await stores.pool.query(
        `INSERT INTO runs (id, session_id, tenant_id, agent, mode, input, status, attempts) VALUES ($1, $2, $3, 'echo', 'async', $4, 'queued', 0)`,
        [randomUUID(), sessionId, tenant, JSON.stringify({ start_at: later })],
      );
      const scheduled = await stores.runs.startChecked(turn(sessionId), checks, 60_000);
      await refused(scheduled);
      expect(scheduled.found && scheduled.session.scheduledRunId).toEqual(expect.any(String));
      expect(await runsOf(sessionId)).toBe(2); // the two inserted above, no other
    });
  });
});
