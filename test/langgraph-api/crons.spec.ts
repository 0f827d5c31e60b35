import { Client } from '@langchain/langgraph-sdk';
import { Queue } from 'bullmq';
import { Client as Pg } from 'pg';

import { redisOptions } from '../../src/config/redis-options';
import { systemAssistantId } from '../../src/langgraph-api/assistants/assistants.service';
import { CRONS_QUEUE } from '../../src/langgraph-api/crons/bull-cron-scheduler';
import { TEST_REDIS_URL } from '../support/infra';
import { type ServiceHandle, useService } from '../support/service-fixture';
import { type RunningApp, startApp, waitFor } from '../support/test-app';

const T1 = 'tenant-one-key-0123456789';
const T2 = 'tenant-two-key-0123456789';
// every second: these suites watch several ticks, so the minimum interval (60 s by default) is lowered
const ENV = { API_KEYS: `t1:${T1},t2:${T2}`, DEFAULT_AGENT: 'react', CRON_MIN_INTERVAL_S: '1' };
const EVERY_SECOND = '* * * * * *';
const NEVER_SOON = '0 0 1 1 *';
// no model: the react agent answers bare arithmetic by its rule fast path
const INPUT = { messages: [{ role: 'user', content: '2+2' }] };

async function statusOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (e) {
    return (e as { status?: number }).status ?? -1;
  }
  return 200;
}

interface CronRun {
  id: string;
  session_id: string;
  status: string;
  created_at: Date;
  response: string | null;
}

/** The runs a cron started (they carry `cron_id` in their metadata). */
async function runsOf(svc: ServiceHandle, cronId: string): Promise<CronRun[]> {
  const pg = new Pg({ connectionString: svc.db.url });
  await pg.connect();
  try {
    const { rows } = await pg.query<CronRun>(
      `SELECT id, session_id, status, created_at, result->>'response' AS response FROM runs
        WHERE input->'metadata'->>'cron_id' = $1 ORDER BY created_at`,
      [cronId],
    );
    return rows;
  } finally {
    await pg.end();
  }
}

const completed = (runs: CronRun[], n: number) => (runs.filter((r) => r.status === 'completed').length >= n ? runs : undefined);

function clients(svc: ServiceHandle) {
  const opts = { callerOptions: { maxRetries: 0 } };
  return [new Client({ apiUrl: svc.url, apiKey: T1, ...opts }), new Client({ apiUrl: svc.url, apiKey: T2, ...opts })] as const;
}

describe('LangGraph API crons on BullMQ job schedulers (official SDK)', () => {
  const svc = useService('crons', { redis: true, env: ENV });
  let c1: Client;
  let c2: Client;
  let queue: Queue;

  beforeAll(() => {
    [c1, c2] = clients(svc);
    queue = new Queue(CRONS_QUEUE, { connection: redisOptions(TEST_REDIS_URL), prefix: svc.queuePrefix });
  });

  afterAll(async () => {
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
  });

  it('creates, searches, counts, updates and deletes thread and stateless crons, per tenant', async () => {
    const thread = await c1.threads.create();
    const onThread = await c1.crons.createForThread(thread.thread_id, 'react', {
      schedule: NEVER_SOON,
      input: INPUT,
      metadata: { team: 'a' },
    });
    expect(onThread).toMatchObject({
      assistant_id: systemAssistantId('react'),
      thread_id: thread.thread_id,
      schedule: NEVER_SOON,
      enabled: true,
    });
    expect(new Date(onThread.next_run_date).getUTCMonth()).toBe(0);
    const stateless = await c1.crons.create('react', { schedule: NEVER_SOON, input: INPUT, onRunCompleted: 'keep' });
    expect(stateless).toMatchObject({ thread_id: null, on_run_completed: 'keep', payload: { input: INPUT } });
    expect(await queue.getJobScheduler(onThread.cron_id)).toMatchObject({ pattern: NEVER_SOON });

    expect((await c1.crons.search({ threadId: thread.thread_id })).map((c) => c.cron_id)).toEqual([onThread.cron_id]);
    expect((await c1.crons.search({ assistantId: 'react', sortBy: 'created_at', sortOrder: 'asc' })).map((c) => c.cron_id)).toEqual([
      onThread.cron_id,
      stateless.cron_id,
    ]);
    expect(await c1.crons.search({ metadata: { team: 'a' } })).toHaveLength(1);
    expect(await c1.crons.count({ assistantId: 'react' })).toBe(2);

    const patched = await c1.crons.update(onThread.cron_id, { schedule: '0 0 2 1 *', enabled: false });
    expect(patched).toMatchObject({ schedule: '0 0 2 1 *', enabled: false, next_run_date: null });
    expect(await queue.getJobScheduler(onThread.cron_id)).toBeUndefined();
    expect(await c1.crons.search({ enabled: false })).toHaveLength(1);

    // another tenant sees none of them
    expect(await c2.crons.search()).toEqual([]);
    expect(await c2.crons.count()).toBe(0);
    expect(await statusOf(c2.crons.delete(stateless.cron_id))).toBe(404);
    expect(await statusOf(c2.crons.update(stateless.cron_id, { enabled: false }))).toBe(404);
    expect(await statusOf(c2.crons.createForThread(thread.thread_id, 'react', { schedule: NEVER_SOON, input: INPUT }))).toBe(404);

    await c1.crons.delete(onThread.cron_id);
    await c1.crons.delete(stateless.cron_id);
    expect(await statusOf(c1.crons.delete(stateless.cron_id))).toBe(404);
    expect(await queue.getJobScheduler(stateless.cron_id)).toBeUndefined();
    expect(await c1.crons.count()).toBe(0);
  });

  it('refuses a bad schedule or time zone (422) and an unknown assistant or thread (404)', async () => {
    expect(await statusOf(c1.crons.create('react', { schedule: 'every day', input: INPUT }))).toBe(422);
    expect(await statusOf(c1.crons.create('react', { schedule: '61 * * * *', input: INPUT }))).toBe(422);
    expect(await statusOf(c1.crons.create('react', { schedule: NEVER_SOON, timezone: 'Mars/Olympus', input: INPUT }))).toBe(422);
    expect(await statusOf(c1.crons.create('nope', { schedule: NEVER_SOON, input: INPUT }))).toBe(404);
    expect(await statusOf(c1.crons.createForThread('no-such-thread', 'react', { schedule: NEVER_SOON, input: INPUT }))).toBe(404);
    expect(await c1.crons.count()).toBe(0);
  });

  it('fires on its thread: completed runs answered by the agent, next_run_date recorded; deleting stops it', async () => {
    const thread = await c1.threads.create();
    const cron = await c1.crons.createForThread(thread.thread_id, 'react', { schedule: EVERY_SECOND, input: INPUT });
    const runs = await waitFor(async () => completed(await runsOf(svc, cron.cron_id), 2), 20_000, 200);
    expect(runs.every((r) => r.session_id === thread.thread_id)).toBe(true);
    expect(runs.find((r) => r.status === 'completed')?.response).toContain('4');
    const [listed] = await c1.crons.search({ threadId: thread.thread_id });
    expect(Date.parse(listed.next_run_date!)).toBeGreaterThan(Date.parse(cron.created_at));

    const state = await c1.threads.getState<{ messages: Array<{ content: unknown }> }>(thread.thread_id);
    expect(state.values.messages.length).toBeGreaterThanOrEqual(4);

    await c1.crons.delete(cron.cron_id);
    const after = (await runsOf(svc, cron.cron_id)).length;
    await new Promise((r) => setTimeout(r, 2500)); // two ticks that must not fire
    expect((await runsOf(svc, cron.cron_id)).length).toBeLessThanOrEqual(after + 1); // a tick taken before the delete
    const settled = (await runsOf(svc, cron.cron_id)).length;
    await new Promise((r) => setTimeout(r, 1500));
    expect((await runsOf(svc, cron.cron_id)).length).toBe(settled);
  });

  describe('with a second app on the same Redis', () => {
    let second: RunningApp;

    beforeAll(async () => {
      second = await startApp(svc.env);
    });

    afterAll(async () => {
      await second?.close();
    });

    it('fires each tick once; a stateless cron runs each tick on a new thread', async () => {
      const cron = await c1.crons.create('react', { schedule: EVERY_SECOND, input: INPUT, onRunCompleted: 'keep' });
      const runs = await waitFor(async () => completed(await runsOf(svc, cron.cron_id), 4), 20_000, 200);
      await c1.crons.delete(cron.cron_id);
      const seconds = runs.map((r) => Math.floor(r.created_at.getTime() / 1000));
      expect(new Set(seconds).size).toBe(seconds.length);
      expect(new Set(runs.map((r) => r.session_id)).size).toBe(runs.length);
      const threads = await c1.threads.search({ limit: 100 });
      expect(threads.map((t) => t.thread_id)).toEqual(expect.arrayContaining(runs.map((r) => r.session_id)));
    });
  });
});

describe('LangGraph API crons in-process (no Redis)', () => {
  const svc = useService('crons_inline', { env: ENV });
  let c1: Client;

  beforeAll(() => {
    [c1] = clients(svc);
  });

  it('fires, keeps firing after a restart (crons reloaded from the table), and stops when deleted', async () => {
    const thread = await c1.threads.create();
    const cron = await c1.crons.createForThread(thread.thread_id, 'react', { schedule: EVERY_SECOND, input: INPUT });
    await waitFor(async () => completed(await runsOf(svc, cron.cron_id), 1), 20_000, 200);

    await svc.restart();
    [c1] = clients(svc);
    const before = (await runsOf(svc, cron.cron_id)).length;
    await waitFor(async () => completed(await runsOf(svc, cron.cron_id), before + 1), 20_000, 200);

    await c1.crons.delete(cron.cron_id);
    const settled = (await runsOf(svc, cron.cron_id)).length;
    await new Promise((r) => setTimeout(r, 2000)); // two ticks that must not fire
    expect((await runsOf(svc, cron.cron_id)).length).toBe(settled);
  });

  it('deletes a stateless cron thread once its run has ended (on_run_completed: delete)', async () => {
    const cron = await c1.crons.create('react', { schedule: EVERY_SECOND, input: INPUT });
    const [first] = await waitFor(
      async () => {
        const runs = await runsOf(svc, cron.cron_id);
        return runs.length ? runs : undefined;
      },
      20_000,
      100,
    );
    await c1.crons.delete(cron.cron_id);
    await waitFor(async () => ((await statusOf(c1.threads.get(first.session_id))) === 404 ? true : undefined), 10_000, 200);
  });
});
