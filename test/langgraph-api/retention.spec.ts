import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Client } from '@langchain/langgraph-sdk';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { CHECKPOINT_SCHEMA } from '../../src/database/checkpoint-schema';
import { ORCHESTRATOR_DATA_SOURCE } from '../../src/database/data-source-name';
import { ENTITIES, SessionEntity } from '../../src/database/entities';
import { PgSessionStore } from '../../src/runs/store/pg-session-store';
import { RetentionSweeper } from '../../src/runs/store/retention-sweeper';
import type { SweepResult } from '../../src/runs/store/session-store';
import { serviceDbUrl } from '../support/infra';
import { SCRIPTED_LLM, type ServiceHandle, useService } from '../support/service-fixture';
import { waitFor } from '../support/test-app';

const T1 = 'tenant-one-key-0123456789';
const T2 = 'tenant-two-key-0123456789';
const KEYS = `t1:${T1},t2:${T2}`;
/** 1.2 seconds */
const TTL = 0.02;
const human = (content: string) => ({ messages: [{ role: 'user', content }] });

/** The HTTP status an SDK call failed with (200 when it did not). */
async function statusOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (e) {
    return (e as { status?: number }).status ?? -1;
  }
  return 200;
}

/** The app's own database connection (the system Postgres or the embedded one alike). */
function dbOf(svc: ServiceHandle): DataSource {
  return svc.app.get<DataSource>(getDataSourceToken(ORCHESTRATOR_DATA_SOURCE));
}

/** What is left of a thread of tenant `t1` in the tables. */
async function rowsOf(svc: ServiceHandle, id: string, tenant = 't1') {
  const db = dbOf(svc);
  const n = async (sql: string, params: unknown[]) => Number(((await db.query(sql, params)) as Array<{ n: string }>)[0].n);
  return {
    sessions: await n(`SELECT count(*) AS n FROM sessions WHERE tenant_id = $1 AND id = $2`, [tenant, id]),
    runs: await n(`SELECT count(*) AS n FROM runs WHERE tenant_id = $1 AND session_id = $2`, [tenant, id]),
    checkpoints: await n(`SELECT count(*) AS n FROM "${CHECKPOINT_SCHEMA}".checkpoints WHERE thread_id = $1`, [`${tenant}:${id}`]),
    blobs: await n(`SELECT count(*) AS n FROM "${CHECKPOINT_SCHEMA}".checkpoint_blobs WHERE thread_id = $1`, [`${tenant}:${id}`]),
  };
}

const ids = (r: SweepResult, key: 'deleted' | 'pruned') => r[key].map((k) => k.id);

/** The retention suite on one database: TTLs, invisibility, the sweep, keep_latest, a running thread, prune. */
function retentionSuite(flavour: string, env: Record<string, string>, db: boolean) {
  describe(`thread retention (${flavour})`, () => {
    const svc = useService(`retention_${flavour}`, {
      env: { ...SCRIPTED_LLM, API_KEYS: KEYS, ...env },
      model: { resetEach: true },
      db,
    });
    let c1: Client;
    let c2: Client;
    let sweeper: RetentionSweeper;

    beforeAll(() => {
      c1 = new Client({ apiUrl: svc.url, apiKey: T1, callerOptions: { maxRetries: 0 } });
      c2 = new Client({ apiUrl: svc.url, apiKey: T2, callerOptions: { maxRetries: 0 } });
      sweeper = svc.app.get(RetentionSweeper);
    });
    beforeEach(() => svc.model.setResponder(() => ({ content: 'noted' })));

    it('a thread with its runs and checkpoints expires: 404 on every read at once, its rows gone after the sweep', async () => {
      const thread = await c1.threads.create({ ttl: TTL });
      const kept = await c1.threads.create();
      await c1.runs.wait(thread.thread_id, 'react', { input: human('remember 42') });
      await c1.runs.wait(kept.thread_id, 'react', { input: human('remember 7') });
      const before = await rowsOf(svc, thread.thread_id);
      expect(before).toMatchObject({ sessions: 1, runs: 1 });
      expect(before.checkpoints).toBeGreaterThan(0);

      await waitFor(async () => ((await statusOf(c1.threads.get(thread.thread_id))) === 404 ? true : undefined), 5_000);
      // invisible everywhere, while its rows are still there (the sweeper has not run: its interval is an hour)
      expect(await statusOf(c1.threads.getState(thread.thread_id))).toBe(404);
      expect(await statusOf(c1.threads.getHistory(thread.thread_id))).toBe(404);
      expect(await statusOf(c1.runs.list(thread.thread_id))).toBe(404);
      const listed = (await c1.threads.search({ limit: 100 })).map((t) => t.thread_id);
      expect(listed).toContain(kept.thread_id);
      expect(listed).not.toContain(thread.thread_id);
      expect(await c1.threads.count({})).toBe(listed.length);
      expect((await rowsOf(svc, thread.thread_id)).sessions).toBe(1);

      const swept = await sweeper.sweep();
      expect(ids(swept, 'deleted')).toContain(thread.thread_id);
      expect(ids(swept, 'deleted')).not.toContain(kept.thread_id);
      expect(await rowsOf(svc, thread.thread_id)).toEqual({ sessions: 0, runs: 0, checkpoints: 0, blobs: 0 });
      // the thread without a TTL is untouched
      expect((await rowsOf(svc, kept.thread_id)).runs).toBe(1);
      expect((await c1.threads.get(kept.thread_id)).values).toMatchObject({ messages: expect.any(Array) });
    });

    it('keep_latest: the expired thread stays, with its state and exactly one checkpoint', async () => {
      // the SDK's types name only `delete` for a thread's own ttl: the wire shape `{ strategy, ttl }` sent as is
      const thread = await c1.threads.create({ ttl: { strategy: 'keep_latest', ttl: TTL } as unknown as number });
      await c1.runs.wait(thread.thread_id, 'react', { input: human('first') });
      await c1.runs.wait(thread.thread_id, 'react', { input: human('second') });
      expect((await rowsOf(svc, thread.thread_id)).checkpoints).toBeGreaterThan(2);
      await new Promise((r) => setTimeout(r, TTL * 60_000 + 300));
      expect(await statusOf(c1.threads.get(thread.thread_id))).toBe(200); // keep_latest never hides the thread

      const swept = await sweeper.sweep();
      expect(ids(swept, 'pruned')).toContain(thread.thread_id);
      const after = await rowsOf(svc, thread.thread_id);
      expect(after).toMatchObject({ sessions: 1, runs: 2, checkpoints: 1 });
      const state = await c1.threads.getState<{ messages: Array<{ content: string }> }>(thread.thread_id);
      expect(state.values.messages.map((m) => m.content)).toEqual(['first', 'noted', 'second', 'noted']);
      expect(await c1.threads.getHistory(thread.thread_id)).toHaveLength(1);
      // its expiry is cleared: a second sweep leaves it alone
      expect(ids(await sweeper.sweep(), 'pruned')).not.toContain(thread.thread_id);
    });

    it('a thread with a run in flight is not swept; it expires after the run ends', async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      svc.model.setResponder(async () => {
        await gate;
        return { content: 'late' };
      });
      const thread = await c1.threads.create({ ttl: TTL });
      const run = await c1.runs.create(thread.thread_id, 'react', { input: human('slow') });
      await waitFor(async () => ((await c1.threads.get(thread.thread_id)).status === 'busy' ? true : undefined));
      await new Promise((r) => setTimeout(r, TTL * 60_000 + 300));
      expect(ids(await sweeper.sweep(), 'deleted')).not.toContain(thread.thread_id);
      expect(await statusOf(c1.threads.get(thread.thread_id))).toBe(200);
      expect((await rowsOf(svc, thread.thread_id)).sessions).toBe(1);

      release();
      await c1.runs.join(thread.thread_id, run.run_id);
      // the run's end is activity: the thread lives a full TTL after it
      expect(ids(await sweeper.sweep(), 'deleted')).not.toContain(thread.thread_id);
      await waitFor(async () => ((await statusOf(c1.threads.get(thread.thread_id))) === 404 ? true : undefined), 5_000);
      expect(ids(await sweeper.sweep(), 'deleted')).toContain(thread.thread_id);
      expect((await rowsOf(svc, thread.thread_id)).runs).toBe(0);
    });

    it('a patch sets the TTL and restarts the expiry; a bad ttl is 422 with a message', async () => {
      const thread = await c1.threads.create();
      await c1.threads.update(thread.thread_id, { ttl: TTL });
      await waitFor(async () => ((await statusOf(c1.threads.get(thread.thread_id))) === 404 ? true : undefined), 5_000);
      expect(ids(await sweeper.sweep(), 'deleted')).toContain(thread.thread_id);

      // the id of an expired thread is free at once, before any sweep: a create with it starts a new, empty thread
      const named = `kept-for-a-while-${flavour}`;
      await c1.threads.create({ threadId: named, ttl: TTL });
      await c1.runs.wait(named, 'react', { input: human('old') });
      await waitFor(async () => ((await statusOf(c1.threads.get(named))) === 404 ? true : undefined), 5_000);
      expect((await rowsOf(svc, named)).runs).toBe(1);
      await c1.threads.create({ threadId: named });
      expect(await rowsOf(svc, named)).toEqual({ sessions: 1, runs: 0, checkpoints: 0, blobs: 0 });
      expect((await c1.threads.get(named)).values).toEqual({});

      const count = () =>
        dbOf(svc).query(`SELECT count(*)::int AS n FROM sessions WHERE tenant_id = 't1'`) as Promise<Array<{ n: number }>>;
      const before = (await count())[0].n;
      for (const ttl of [0, -1, 'soon', { strategy: 'forever', ttl: 1 }, { strategy: 'delete' }]) {
        const res = await fetch(`${svc.url}/threads`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': T1 },
          body: JSON.stringify({ ttl }),
        });
        expect(res.status).toBe(422);
        expect(await res.text()).toMatch(/ttl/);
      }
      expect((await count())[0].n).toBe(before); // nothing written by the refused creates
    });

    it('prune: counts what it pruned; other tenants’ and unknown ids, and running threads, are left untouched', async () => {
      const mine = await c1.threads.create();
      const theirs = await c2.threads.create();
      await c1.runs.wait(mine.thread_id, 'react', { input: human('a') });
      await c2.runs.wait(theirs.thread_id, 'react', { input: human('b') });
      const res = await c1.threads.prune([mine.thread_id, theirs.thread_id, 'no-such-thread', mine.thread_id]);
      expect(res).toEqual({ pruned_count: 1 });
      expect(await rowsOf(svc, mine.thread_id)).toEqual({ sessions: 0, runs: 0, checkpoints: 0, blobs: 0 });
      const other = await rowsOf(svc, theirs.thread_id, 't2');
      expect(other).toMatchObject({ sessions: 1, runs: 1 });
      expect(other.checkpoints).toBeGreaterThan(1);

      // keep_latest through prune: one checkpoint left, the state kept
      const twice = await c1.threads.create();
      await c1.runs.wait(twice.thread_id, 'react', { input: human('one') });
      await c1.runs.wait(twice.thread_id, 'react', { input: human('two') });
      expect(await c1.threads.prune([twice.thread_id], { strategy: 'keep_latest' })).toEqual({ pruned_count: 1 });
      expect(await rowsOf(svc, twice.thread_id)).toMatchObject({ sessions: 1, runs: 2, checkpoints: 1 });
      expect((await c1.threads.getState<{ messages: unknown[] }>(twice.thread_id)).values.messages).toHaveLength(4);

      // a running thread: not pruned, not counted
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      svc.model.setResponder(async () => {
        await gate;
        return { content: 'late' };
      });
      const busy = await c1.threads.create();
      const run = await c1.runs.create(busy.thread_id, 'react', { input: human('slow') });
      await waitFor(async () => ((await c1.threads.get(busy.thread_id)).status === 'busy' ? true : undefined));
      expect(await c1.threads.prune([busy.thread_id])).toEqual({ pruned_count: 0 });
      release();
      await c1.runs.join(busy.thread_id, run.run_id);
      expect((await rowsOf(svc, busy.thread_id)).runs).toBe(1);

      const bad = await fetch(`${svc.url}/threads/prune`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': T1 },
        body: JSON.stringify({ thread_ids: [mine.thread_id], strategy: 'archive' }),
      });
      expect(bad.status).toBe(422);
      expect(await bad.text()).toMatch(/strategy/);
    });
  });
}

retentionSuite('postgres', {}, true);
retentionSuite('pglite', { DATA_DIR: mkdtempSync(path.join(tmpdir(), 'agents-retention-')) }, false);

describe('thread retention: the default TTL of REST v1 sessions, the timer, several sweepers at once', () => {
  const svc = useService('retention_v1', {
    env: { ...SCRIPTED_LLM, DEFAULT_AGENT: 'react', THREAD_TTL_MINUTES: String(TTL), THREAD_TTL_SWEEP_MINUTES: '0.01' },
    model: { resetEach: true },
  });
  beforeEach(() => svc.model.setResponder(() => ({ content: '알겠습니다' })));

  it('a v1 session gets the default TTL: 404 once expired, swept by the timer (rows gone)', async () => {
    const turn = await svc.http('POST', '/v1/chat', { message: '기억해 줘: 42' });
    expect(turn.status).toBe(200);
    const id = turn.body.session_id as string;
    expect((await svc.http('GET', `/v1/sessions/${id}`)).status).toBe(200);
    await waitFor(async () => ((await svc.http('GET', `/v1/sessions/${id}`)).status === 404 ? true : undefined), 5_000);
    const listed = await svc.http('GET', '/v1/sessions');
    expect(JSON.stringify(listed.body)).not.toContain(id);
    await waitFor(async () => ((await rowsOf(svc, id, 'default')).sessions === 0 ? true : undefined), 5_000);
    expect(await rowsOf(svc, id, 'default')).toEqual({ sessions: 0, runs: 0, checkpoints: 0, blobs: 0 });
  });

  it('a v1 job goes with its session: 404 once the session expired, its run row swept', async () => {
    const job = await svc.http('POST', '/v1/jobs', { message: '나중에 답해 줘' });
    expect(job.status).toBe(202);
    const jobId = job.body.job_id as string;
    await waitFor(async () => ((await svc.http('GET', `/v1/jobs/${jobId}`)).body?.status === 'completed' ? true : undefined));
    await waitFor(async () => ((await svc.http('GET', `/v1/jobs/${jobId}`)).status === 404 ? true : undefined), 5_000);
    await waitFor(async () => ((await rowsOf(svc, job.body.session_id as string, 'default')).runs === 0 ? true : undefined), 5_000);
  });

  it('four sweepers on four pools at once sweep each expired thread exactly once', async () => {
    // the app's own timer is one more sweeper; stop it so that what is counted here is all that swept
    await svc.app.get(RetentionSweeper).onApplicationShutdown();
    const created: string[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await svc.http('POST', '/threads', { ttl: TTL });
      created.push(r.body.thread_id as string);
    }
    await new Promise((r) => setTimeout(r, TTL * 60_000 + 300));
    const pools = await Promise.all(
      [0, 1, 2, 3].map(async () => {
        const ds = new DataSource({ type: 'postgres', url: serviceDbUrl(svc.db.url), entities: ENTITIES, poolSize: 2 });
        return ds.initialize();
      }),
    );
    try {
      const stores = pools.map((ds) => new PgSessionStore(ds.getRepository(SessionEntity), ds));
      // each sweeps in batches of 5 until a batch is short or the lock is taken, as RetentionSweeper does
      const sweepAll = async (store: PgSessionStore) => {
        const mine: string[] = [];
        for (;;) {
          const batch = await store.sweepExpired(5);
          if (!batch) return mine;
          mine.push(...ids(batch, 'deleted'));
          if (batch.deleted.length + batch.pruned.length < 5) return mine;
        }
      };
      const rounds = await Promise.all([...stores, ...stores].map(sweepAll));
      const all = rounds.flat().filter((id) => created.includes(id));
      expect(all.sort()).toEqual([...created].sort());
      const left = (await dbOf(svc).query(`SELECT count(*)::int AS n FROM sessions WHERE id = ANY($1::text[])`, [created])) as Array<{
        n: number;
      }>;
      expect(left[0].n).toBe(0);
    } finally {
      await Promise.all(pools.map((ds) => ds.destroy()));
    }
  });
});
