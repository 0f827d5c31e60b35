import IORedis from 'ioredis';

import { waitFor } from '../support/test-app';
import { Harness, historyOf, weatherResponder } from './support/harness';
import { SENTINEL_NAME, SentinelGroup } from './support/sentinel-group';

const RUNS = 30;
const SWITCH_RUNS = 16;
const KEY = 'sentinel-test-key-0123456789';
const auth = { authorization: `Bearer ${KEY}` };
/** generous: the sentinels need DOWN_AFTER_MS to call the primary down, then an election and a promotion */
const RECOVERY_BOUND_MS = 20_000;

interface SseEvent {
  event: string;
  data: any;
}

/** Follows a job's events until its `result` (or the stream ends). */
async function follow(url: string): Promise<SseEvent[]> {
  const res = await fetch(url, { headers: auth });
  if (res.status !== 200) throw new Error(`events: ${res.status}`);
  const events: SseEvent[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      if (event) events.push({ event, data: JSON.parse(/^data: (.*)$/m.exec(block)![1]) });
      if (event === 'result') return events;
    }
  }
  return events;
}

/**
 * Redis Sentinel (issue #25): a primary, a replica and three sentinels of real redis-server processes; the API
 * (this process, RUN_WORKER=false) and two worker processes know only REDIS_SENTINELS. Under a load of queued
 * runs the primary is SIGKILLed: the sentinels promote the replica, every client (BullMQ queue and workers, the
 * run event bus and its SSE readers, the cancel channel, the rate limiter) asks them for the new primary, and
 * every accepted run ends completed, its tool run once and its model asked twice (tool call, answer). The
 * times from the kill to the promotion, to runs accepted again and to the first run taken from the new primary
 * completed are printed (README: Durability, Redis Sentinel). Then the killed node comes back as a replica and
 * a planned switchover (SENTINEL FAILOVER) demotes the live primary under load: the same promises.
 */
describe('Redis Sentinel: failover under load', () => {
  const group = new SentinelGroup();
  const h = new Harness();
  const asked = (text: string) => h.model.requests.filter((r) => historyOf(r).user.includes(text)).length;

  beforeAll(async () => {
    await group.start();
    await h.start(
      'sentinel',
      {
        REDIS_URL: '',
        REDIS_SENTINELS: group.sentinelList,
        REDIS_SENTINEL_NAME: SENTINEL_NAME,
        WORKER_CONCURRENCY: '4',
        RUN_LOCK_MS: '5000',
        RUN_STALLED_CHECK_MS: '2500',
      },
      { API_KEYS: `t1:${KEY}`, RATE_LIMIT_PER_MINUTE: '100000' },
    );
    h.model.setResponder(weatherResponder);
    h.model.latencyMs = 250;
    await Promise.all([h.startWorker(), h.startWorker()]);
  }, 60_000);

  afterAll(async () => {
    // the Redis processes are stopped even when the harness does not stop in time
    const stopped = h.stop().catch((err: Error) => console.error(`harness stop: ${err.message}`));
    await Promise.race([stopped, new Promise((r) => setTimeout(r, 20_000).unref())]);
    await group.stop();
  }, 30_000);

  /** `n` queued runs "weather in {place}{i}"; all accepted (202) */
  async function load(place: string, n: number): Promise<Array<{ job_id: string; session_id: string }>> {
    const jobs = [];
    for (let i = 0; i < n; i++) {
      const res = await h.submit(`weather in ${place}${i}`, {}, auth);
      expect(res.status).toBe(202);
      jobs.push(res.body);
    }
    return jobs;
  }

  const completed = async (ids: string[]) =>
    (await h.query(`SELECT 1 FROM runs WHERE id = ANY($1::uuid[]) AND status = 'completed'`, [ids])).length;

  /** every run completed with its answer, its tool run once, its model asked twice; the runs that were not */
  async function notOnce(place: string, jobs: Array<{ job_id: string }>): Promise<string[]> {
    const rows = await h.allEnded(
      jobs.map((j) => j.job_id),
      45_000,
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const wrong: string[] = [];
    for (const [i, j] of jobs.entries()) {
      const city = `${place}${i}`;
      const run = byId.get(j.job_id);
      const [tool, calls, answer] = [h.weather.count(city), asked(`weather in ${city}`), run.result?.response];
      if (run.status !== 'completed' || tool !== 1 || calls !== 2 || answer !== `날씨를 확인했습니다: ${city}`)
        wrong.push(
          `${city}: ${run.status} ${JSON.stringify(run.error)}, tool ${tool}, model ${calls}, attempts ${run.attempts}, "${answer}"`,
        );
    }
    return wrong;
  }

  /** ms from `since` to the first of the runs started after it (taken from the queue after it) completing */
  async function firstCompletedAfter(ids: string[], since: number): Promise<number> {
    const [{ first }] = await h.query(
      `SELECT EXTRACT(EPOCH FROM min(finished_at)) * 1000 AS first FROM runs
       WHERE id = ANY($1::uuid[]) AND status = 'completed' AND started_at > to_timestamp($2 / 1000.0)`,
      [ids, since],
    );
    return Math.round(Number(first) - since);
  }

  it('primary SIGKILLed: every accepted run completes once, SSE followers get their results, the time to recover is measured', async () => {
    expect(await group.currentPrimaryPort()).toBe(group.primary.port);
    const jobs = await load('City', RUNS);
    // followers of the last runs, which are still queued when the primary dies
    const followed = jobs
      .slice(-4)
      .map((j) =>
        follow(`${h.api.url}/v1/jobs/${j.job_id}/events`).catch((err: Error): SseEvent[] => [{ event: 'failed', data: err.message }]),
      );
    const ids = jobs.map((j) => j.job_id);
    await waitFor(async () => ((await completed(ids)) >= 6 ? true : undefined), 30_000);
    const doneAtKill = await completed(ids);

    const killedAt = Date.now();
    group.kill(group.primary);
    const promoted = waitFor(
      async () => ((await group.currentPrimaryPort()) !== group.primary.port ? Date.now() - killedAt : undefined),
      30_000,
    );

    // a new run every 100 ms until one is accepted: the API refuses (503) while its queue connection is down
    const refused: string[] = [];
    let probe: { job_id: string } | undefined;
    for (let i = 0; !probe && Date.now() - killedAt < RECOVERY_BOUND_MS; i++) {
      const res = await h.submit(`recovery probe ${i}`, {}, auth);
      if (res.status === 202) probe = res.body;
      else {
        expect(res.status).toBe(503);
        refused.push(`recovery probe ${i}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    expect(probe).toBeDefined();
    const acceptedMs = Date.now() - killedAt;
    const promotedMs = await promoted;
    expect(await group.currentPrimaryPort()).toBe(group.replica.port);

    // none lost, none run twice; a refused run is not executed after all
    expect(await notOnce('City', jobs)).toEqual([]);
    expect((await h.allEnded([probe!.job_id]))[0].status).toBe('completed');
    expect(asked(`recovery probe ${refused.length}`)).toBe(1);
    expect(refused.filter((text) => asked(text) > 0)).toEqual([]);

    const recoveredMs = await firstCompletedAfter([...ids, probe!.job_id], killedAt);
    console.log(
      `Redis Sentinel failover (down-after ${SentinelGroup.DOWN_AFTER_MS} ms): ${doneAtKill}/${RUNS} runs done at the kill; ` +
        `replica promoted after ${promotedMs} ms; the API accepted runs again after ${acceptedMs} ms (${refused.length} refused with 503); ` +
        `the first run taken from the new primary completed after ${recoveredMs} ms`,
    );
    expect(recoveredMs).toBeGreaterThan(0);
    expect(recoveredMs).toBeLessThan(RECOVERY_BOUND_MS);

    // the followers got their runs' ends through the failover
    for (const [i, events] of (await Promise.all(followed)).entries()) {
      const city = `City${RUNS - 4 + i}`;
      expect(events.at(-1)).toMatchObject({ event: 'result', data: { response: `날씨를 확인했습니다: ${city}` } });
      expect(events.filter((e) => e.event === 'status').at(-1)?.data.status).toBe('completed');
    }

    // the rate limiter counts on the new primary again (it let requests through while Redis was away)
    const primary = new IORedis({ port: group.replica.port, host: '127.0.0.1' });
    try {
      const key = await waitFor(async () => (await primary.keys(`{${h.env.QUEUE_PREFIX}:ratelimit:*}:hits`))[0]);
      const before = Number(await primary.get(key));
      expect((await fetch(`${h.api.url}/v1/jobs/${jobs[0].job_id}`, { headers: auth })).status).toBe(200);
      expect(Number(await primary.get(key))).toBeGreaterThan(before);
    } finally {
      primary.disconnect();
    }
  }, 60_000);

  it('a planned switchover (SENTINEL FAILOVER) under load: every client moves to the new primary at once, every run completes once', async () => {
    const current = await group.currentPrimaryPort();
    const [live, other] = current === group.primary.port ? [group.primary, group.replica] : [group.replica, group.primary];
    if (!group.alive(other)) await group.revive(other, live.port); // killed by the test before

    const jobs = await load('Town', SWITCH_RUNS);
    const ids = jobs.map((j) => j.job_id);
    await waitFor(async () => ((await completed(ids)) >= 4 ? true : undefined), 30_000);

    const switchedAt = Date.now();
    await group.switchover();
    const switchedMs = await waitFor(
      async () => ((await group.currentPrimaryPort()) === other.port ? Date.now() - switchedAt : undefined),
      30_000,
    );
    // every client has left the demoted primary once every sentinel names the new one (a client that asked a
    // sentinel not told yet moves at that sentinel's +switch-master): a run accepted then is queued on the new
    // primary. Without that, the demoted node takes it: it stays a primary until the sentinels turn it into a
    // replica, ~10 s after the switchover, and then drops what it took.
    await waitFor(async () => ((await group.agreedPrimaryPort()) === other.port ? true : undefined), 10_000);
    await new Promise((r) => setTimeout(r, 1000));
    const probe = await waitFor(
      async () => {
        const res = await h.submit('after the switchover', {}, auth);
        return res.status === 202 ? res : undefined;
      },
      RECOVERY_BOUND_MS,
      100,
    );
    expect((await h.allEnded([probe.body.job_id]))[0].status).toBe('completed');
    const newPrimary = new IORedis({ port: other.port, host: '127.0.0.1' });
    try {
      expect(await newPrimary.exists(`${h.env.QUEUE_PREFIX}:runs:${probe.body.job_id}`)).toBe(1);
    } finally {
      newPrimary.disconnect();
    }
    expect(await notOnce('Town', jobs)).toEqual([]);
    console.log(
      `Redis Sentinel switchover: the replica primary after ${switchedMs} ms; ` +
        `the first run taken from it completed after ${await firstCompletedAfter(ids, switchedAt)} ms`,
    );
  }, 60_000);
});
