import IORedis from 'ioredis';

import { waitFor } from '../support/test-app';
import { Harness, historyOf, weatherResponder } from './support/harness';
import { SENTINEL_NAME, SentinelGroup } from './support/sentinel-group';

const RUNS = 30;
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
 * time from the kill to a run accepted and completed on the new primary is printed (README: Redis Sentinel).
 */
describe('Redis Sentinel: the primary SIGKILLed under load', () => {
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
    await h.startWorker();
    await h.startWorker();
  }, 60_000);

  afterAll(async () => {
    await h.stop().catch((err: Error) => console.error(`harness stop: ${err.message}`));
    await group.stop();
  }, 30_000);

  it('every accepted run completes once; events still reach SSE followers; the time to recover is measured', async () => {
    expect(await group.currentPrimaryPort()).toBe(group.primary.port);
    h.model.latencyMs = 250;

    const jobs: Array<{ job_id: string; session_id: string }> = [];
    for (let i = 0; i < RUNS; i++) {
      const res = await h.submit(`weather in City${i}`, {}, auth);
      expect(res.status).toBe(202);
      jobs.push(res.body);
    }
    // followers of the last runs, which are still queued when the primary dies
    const followed = jobs
      .slice(-4)
      .map((j) =>
        follow(`${h.api.url}/v1/jobs/${j.job_id}/events`).catch((err: Error): SseEvent[] => [{ event: 'failed', data: err.message }]),
      );
    await waitFor(async () => ((await h.query(`SELECT 1 FROM runs WHERE status = 'completed'`)).length >= 6 ? true : undefined), 30_000);
    const doneAtKill = (await h.query(`SELECT 1 FROM runs WHERE status = 'completed'`)).length;

    const killedAt = Date.now();
    group.killPrimary();
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

    // none lost, none run twice
    const rows = await h.allEnded([...jobs.map((j) => j.job_id), probe!.job_id], 45_000);
    expect(rows.filter((r) => r.status !== 'completed').map((r) => `${r.id}: ${r.status} ${JSON.stringify(r.error)}`)).toEqual([]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const wrong: string[] = [];
    for (const [i, j] of jobs.entries()) {
      const city = `City${i}`;
      const tool = h.weather.count(city);
      const calls = asked(`weather in ${city}`);
      const answer = byId.get(j.job_id).result?.response;
      if (tool !== 1 || calls !== 2 || answer !== `날씨를 확인했습니다: ${city}`)
        wrong.push(`${city}: tool ${tool}, model ${calls}, attempts ${byId.get(j.job_id).attempts}, "${answer}"`);
    }
    expect(wrong).toEqual([]); // on failure: the runs lost or executed twice
    expect(asked(`recovery probe ${refused.length}`)).toBe(1);
    expect(refused.filter((text) => asked(text) > 0)).toEqual([]); // a refused run is not executed after all

    // recovered: the first run that a worker took from the new primary (started after the kill) completed
    const [{ first }] = await h.query(
      `SELECT EXTRACT(EPOCH FROM min(finished_at)) * 1000 AS first FROM runs WHERE id = ANY($1::uuid[]) AND started_at > to_timestamp($2 / 1000.0)`,
      [[...jobs.map((j) => j.job_id), probe!.job_id], killedAt],
    );
    const recoveredMs = Math.round(Number(first) - killedAt);
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
      const hitsKey = async () => (await primary.keys(`{${h.env.QUEUE_PREFIX}:ratelimit:*}:hits`))[0];
      const key = await waitFor(hitsKey);
      const before = Number(await primary.get(key));
      expect((await fetch(`${h.api.url}/v1/jobs/${jobs[0].job_id}`, { headers: auth })).status).toBe(200);
      expect(Number(await primary.get(key))).toBeGreaterThan(before);
    } finally {
      primary.disconnect();
    }
  }, 90_000);
});
