import { randomUUID } from 'node:crypto';

import type { RunEntity } from '../../database/entities';
import type { NewRun, RunEnd, RunStore } from './run-store';
import type { SessionStore } from './session-store';

/** What a contract run needs: a run store and the session store beside it, fresh for the suite. */
export interface RunStoreFixture {
  runs: RunStore;
  sessions: SessionStore;
  close?: () => Promise<void>;
}

const LEASE_MS = 60_000;

const ENDED: RunEnd = {
  status: 'completed',
  result: null,
  error: null,
  trace: null,
  usage: { calls: 0, promptTokens: 0, completionTokens: 0 },
  messages: null,
};

/**
 * The run store's contract, one suite run against every implementation (the in-memory store of the run core's unit
 * tests, and Postgres): the acceptance forms and their multitask decisions, the lease order, cancel, the fencing
 * token of `finish`, tenancy, delete. A behaviour the unit tests rely on and Postgres lacks (or the reverse)
 * fails here.
 */
export function describeRunStoreContract(name: string, open: () => Promise<RunStoreFixture>): void {
  describe(`run store contract: ${name}`, () => {
    let f: RunStoreFixture;
    const tenant = `t-${randomUUID().slice(0, 8)}`;

    beforeAll(async () => {
      f = await open();
    });

    afterAll(async () => {
      await f?.close?.();
    });

    /** A new session of the tenant (client-chosen id) and a run in it, not written yet. */
    async function session(): Promise<string> {
      const id = `s-${randomUUID()}`;
      await f.sessions.open(tenant, id, 'echo');
      return id;
    }
    const newRun = (sessionId: string, message = 'hi'): NewRun => ({
      id: randomUUID(),
      sessionId,
      tenantId: tenant,
      agent: 'echo',
      mode: 'async',
      input: { message },
    });
    const status = async (id: string) => (await f.runs.get(id)).status;

    it('writes a queued run and reads it back for its tenant only', async () => {
      const s = await session();
      const run = await f.runs.create(newRun(s, 'read me'));
      expect(run).toMatchObject({ status: 'queued', attempts: 0, sessionId: s, tenantId: tenant });
      expect((await f.runs.get(run.id)).input.message).toBe('read me');
      expect((await f.runs.getForTenant(run.id, tenant)).id).toBe(run.id);
      await expect(f.runs.getForTenant(run.id, 'another-tenant', 'run')).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
      await expect(f.runs.get(randomUUID())).rejects.toMatchObject({ code: 'JOB_NOT_FOUND' });
    });

    it('starts a run in the statement that accepts it when the session is free, queues it behind an unfinished one', async () => {
      const s = await session();
      const first = await f.runs.createStarted(newRun(s), LEASE_MS);
      expect(first).toMatchObject({ status: 'running', attempts: 1 });
      expect((await f.sessions.leaseHolder(s, tenant))?.runId).toBe(first.id);
      const second = await f.runs.createStarted(newRun(s), LEASE_MS);
      expect(second.status).toBe('queued');
      expect(await f.runs.leaseAndStart(second.id, LEASE_MS, 3)).toBeNull(); // the first holds the session
      expect(await f.runs.finish(first, ENDED)).toBe(true);
      expect(await f.sessions.leaseHolder(s, tenant)).toBeNull();
      const started = await f.runs.leaseAndStart(second.id, LEASE_MS, 3);
      expect(started?.run).toMatchObject({ id: second.id, status: 'running', attempts: 1 });
    });

    it('keeps the acceptance order: a later run does not start before an earlier unfinished one', async () => {
      const s = await session();
      const a = await f.runs.create(newRun(s, 'a'));
      const b = await f.runs.create(newRun(s, 'b'));
      expect(await f.runs.nextOfSession(s, tenant)).toBe(a.id);
      expect(await f.runs.leaseAndStart(b.id, LEASE_MS, 3)).toBeNull();
      const started = await f.runs.leaseAndStart(a.id, LEASE_MS, 3);
      expect(started?.run.id).toBe(a.id);
      expect(await f.sessions.inflight(tenant, s)).toEqual([a.id, b.id]);
    });

    it('multitask reject: accepted on an idle session, refused (null, nothing written) while a run is unfinished', async () => {
      const s = await session();
      const first = await f.runs.createExclusive(newRun(s));
      expect(first?.status).toBe('queued');
      const refused = newRun(s);
      expect(await f.runs.createExclusive(refused)).toBeNull();
      await expect(f.runs.get(refused.id)).rejects.toMatchObject({ code: 'JOB_NOT_FOUND' });
      await expect(f.runs.createExclusive(newRun(`gone-${randomUUID()}`))).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    });

    it('multitask reject under 20 concurrent acceptances on one session: exactly one written', async () => {
      const s = await session();
      const results = await Promise.all(Array.from({ length: 20 }, () => f.runs.createExclusive(newRun(s))));
      expect(results.filter((r) => r !== null)).toHaveLength(1);
      expect(await f.runs.listBySession(s, tenant)).toHaveLength(1);
    });

    it('multitask interrupt / rollback: one transaction cancels queued runs, flags running ones, writes the new run behind them', async () => {
      const s = await session();
      const running = await f.runs.createStarted(newRun(s, 'running'), LEASE_MS);
      const queued = await f.runs.create(newRun(s, 'queued'));
      const { run, stopped } = await f.runs.createSuperseding(newRun(s, 'new'));
      expect(stopped).toEqual(
        expect.arrayContaining([
          { id: running.id, outcome: 'flagged' },
          { id: queued.id, outcome: 'cancelled' },
        ]),
      );
      expect(stopped).toHaveLength(2);
      expect(run.status).toBe('queued');
      expect(await status(queued.id)).toBe('cancelled');
      const flagged = await f.runs.get(running.id);
      expect(flagged).toMatchObject({ status: 'running', cancelRequested: true });
      // the new run waits for the stopped one to end, then starts
      expect(await f.runs.leaseAndStart(run.id, LEASE_MS, 3)).toBeNull();
      expect(await f.runs.finish(flagged, { ...ENDED, status: 'cancelled' })).toBe(true);
      expect((await f.runs.leaseAndStart(run.id, LEASE_MS, 3))?.run.id).toBe(run.id);
      await expect(f.runs.createSuperseding(newRun(`gone-${randomUUID()}`))).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    });

    it('multitask interrupt under concurrent acceptances: the last one written survives, every other is cancelled', async () => {
      const s = await session();
      const accepted = await Promise.all(Array.from({ length: 10 }, (_, i) => f.runs.createSuperseding(newRun(s, `n${i}`))));
      const rows = await f.runs.listBySession(s, tenant);
      expect(rows).toHaveLength(10);
      const alive = rows.filter((r) => r.status === 'queued');
      expect(alive).toHaveLength(1);
      expect(rows.filter((r) => r.status === 'cancelled')).toHaveLength(9);
      // every run but one was stopped by exactly one later acceptance
      const stopped = accepted.flatMap((a) => a.stopped.map((x) => x.id));
      expect(new Set(stopped).size).toBe(9);
      expect(stopped).not.toContain(alive[0].id);
    });

    it('cancel: a queued run at once, a running one flagged, an ended one left as it is', async () => {
      const s = await session();
      const running = await f.runs.createStarted(newRun(s), LEASE_MS);
      const queued = await f.runs.create(newRun(s));
      expect(await f.runs.requestCancel(queued.id)).toEqual({ outcome: 'cancelled', status: 'cancelled' });
      expect(await f.runs.requestCancel(running.id)).toEqual({ outcome: 'flagged', status: 'running' });
      expect(await f.runs.finish(await f.runs.get(running.id), { ...ENDED, status: 'cancelled' })).toBe(true);
      expect(await f.runs.requestCancel(running.id)).toEqual({ outcome: 'ended', status: 'cancelled' });
    });

    it('finish is fenced by the attempt: a stale attempt writes nothing, an ended run is not ended again', async () => {
      const s = await session();
      const run = await f.runs.createStarted(newRun(s), LEASE_MS);
      const stale: RunEntity = Object.assign(Object.create(Object.getPrototypeOf(run) as object) as RunEntity, run, { attempts: 7 });
      expect(await f.runs.finish(stale, { ...ENDED, status: 'failed' })).toBe(false);
      expect(await status(run.id)).toBe('running');
      expect(await f.runs.finish(run, ENDED)).toBe(true);
      expect(await f.runs.finish(run, { ...ENDED, status: 'failed' })).toBe(false);
      expect(await status(run.id)).toBe('completed');
    });

    it('deletes an ended run', async () => {
      const s = await session();
      const run = await f.runs.createStarted(newRun(s), LEASE_MS);
      await f.runs.finish(run, ENDED);
      expect(await f.runs.deleteRun(tenant, `${tenant}:${s}`, run.id)).toBe(true);
      await expect(f.runs.get(run.id)).rejects.toMatchObject({ code: 'JOB_NOT_FOUND' });
      expect(await f.runs.listBySession(s, tenant)).toEqual([]);
    });
  });
}
