import { waitFor } from '../support/test-app';
import { Harness, historyOf, weatherResponder } from './support/harness';
import { flushPrefix, killRedisClientsOf } from './support/redis-faults';

/**
 * Redis flushed or restarted: the runs table is the source of truth. Jobs that vanished are enqueued again by
 * the reconciler (RUN_RECONCILE_MS), a turn that was running when its job vanished finishes once, and
 * workers whose connections were killed reconnect and keep consuming.
 */
describe('Redis flushed or its connections killed', () => {
  const h = new Harness();
  const asked = (text: string) => h.model.requests.filter((r) => historyOf(r).user.includes(text)).length;

  beforeAll(async () => {
    await h.start('redis', { WORKER_CONCURRENCY: '1' });
    h.model.setResponder(weatherResponder);
  });

  afterAll(async () => {
    await h.stop();
  });

  it('after the queue keys are flushed, every accepted run still ends exactly once', async () => {
    h.model.latencyMs = 1500;
    await h.startWorker();
    const active = (await h.submit('running during the flush')).body;
    await waitFor(async () => (asked('running during the flush') === 1 ? true : undefined));
    const waiting = [];
    for (let i = 0; i < 4; i++) waiting.push((await h.submit(`waiting ${i}`)).body);

    expect(await flushPrefix(h.env.QUEUE_PREFIX)).toBeGreaterThan(0);
    h.model.latencyMs = 0;

    const ids = [active, ...waiting].map((j) => j.job_id);
    const rows = await h.allEnded(ids, 30_000);
    expect(rows.map((r) => r.status)).toEqual(ids.map(() => 'completed'));
    expect(asked('running during the flush')).toBe(1);
    for (let i = 0; i < 4; i++) expect(asked(`waiting ${i}`)).toBe(1);
    for (const j of [active, ...waiting]) expect(await h.messages(j.session_id)).toHaveLength(2);
  });

  it('a worker whose Redis connections are killed reconnects and keeps consuming', async () => {
    await h.killWorkers();
    const worker = await h.startWorker();
    const before = (await h.submit('before the kill')).body;
    await h.allEnded([before.job_id]);

    expect(await killRedisClientsOf(worker.pid)).toBeGreaterThan(0);
    const after = [];
    for (let i = 0; i < 3; i++) after.push((await h.submit(`after the kill ${i}`)).body);
    const rows = await h.allEnded(
      after.map((j) => j.job_id),
      30_000,
    );
    expect(rows.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
    expect(worker.alive).toBe(true);
    for (let i = 0; i < 3; i++) expect(asked(`after the kill ${i}`)).toBe(1);
  });
});
