import { randomUUID } from 'node:crypto';

import IORedis from 'ioredis';

import { redisOptions } from '../../src/config/redis-options';
import { RedisRunEventBus } from '../../src/events/redis-run-event-bus';
import type { RunEvent } from '../../src/events/run-event-bus';
import { TEST_REDIS_URL, uniqueQueuePrefix } from '../support/infra';
import { monitorRedis } from '../support/redis-monitor';

/** The run event bus on the real Redis, with two bus instances standing for two processes. */
describe('RedisRunEventBus across processes', () => {
  const prefix = uniqueQueuePrefix('run_events');
  const options = { prefix, window: 50, ttlS: 120, idleTtlS: 600, blockMs: 200 };
  const worker = new RedisRunEventBus(redisOptions(TEST_REDIS_URL), options);
  const api = new RedisRunEventBus(redisOptions(TEST_REDIS_URL), options);
  const redis = new IORedis(redisOptions(TEST_REDIS_URL));

  afterAll(async () => {
    await worker.onModuleDestroy();
    await api.onModuleDestroy();
    const keys = await redis.keys(`run-events:${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  const steps = (events: RunEvent[]) => events.map((e) => (e.data as { step: number }).step);

  it('replays what a reconnecting subscriber missed (Last-Event-ID), then the live events, then ends', async () => {
    const runId = randomUUID();
    for (let step = 1; step <= 5; step++) worker.publish(runId, 'progress', { run_id: runId, step });
    await worker.flushed();

    // the first connection reads three events, then goes away
    const first: RunEvent[] = [];
    const gone = new AbortController();
    for await (const e of api.subscribe(runId, { signal: gone.signal })) {
      first.push(e);
      if (first.length === 3) gone.abort();
    }
    expect(steps(first)).toEqual([1, 2, 3]);
    expect(first.every((e) => /^\d+-\d+$/.test(e.id))).toBe(true);

    // it reconnects with the id of the last event it got: the missed ones, then live ones until `end`
    const resumed: RunEvent[] = [];
    const reading = (async () => {
      for await (const e of api.subscribe(runId, { lastEventId: first[2].id })) resumed.push(e);
    })();
    await waitUntil(() => resumed.length === 2);
    for (let step = 6; step <= 8; step++) worker.publish(runId, 'progress', { run_id: runId, step });
    worker.publish(runId, 'result', { response: 'done' });
    worker.end(runId);
    await reading;
    expect(steps(resumed.slice(0, -1))).toEqual([4, 5, 6, 7, 8]);
    expect(resumed.at(-1)).toMatchObject({ event: 'result', data: { response: 'done' }, json: '{"response":"done"}' });
    expect(new Set([...first, ...resumed].map((e) => e.id)).size).toBe(first.length + resumed.length);
  });

  it('sets the expiry after end, and a subscriber of an ended run gets its window and finishes', async () => {
    const runId = randomUUID();
    worker.publish(runId, 'metadata', { run_id: runId });
    await worker.flushed();
    const key = `run-events:${prefix}:${runId}`;
    expect(await redis.ttl(key)).toBeGreaterThan(options.ttlS); // a run in progress: the idle expiry
    worker.publish(runId, 'result', { response: 'ok' });
    worker.end(runId);
    await worker.flushed();
    const ttl = await redis.ttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(options.ttlS);
    const events: RunEvent[] = [];
    for await (const e of api.subscribe(runId)) events.push(e);
    expect(events.map((e) => e.event)).toEqual(['metadata', 'result']);
  });

  it('sends what one event-loop turn publishes as one batch, and sets the idle expiry once, not with every batch', async () => {
    const runId = randomUUID();
    const key = `run-events:${prefix}:${runId}`;
    const { commands, stop } = await monitorRedis(TEST_REDIS_URL, (args) => args[1] === key);
    try {
      for (let step = 1; step <= 5; step++) worker.publish(runId, 'token', { step });
      await worker.flushed();
      expect(await redis.ttl(key)).toBeGreaterThan(options.ttlS); // the idle expiry, set with the first batch
      await redis.expire(key, 500); // stands for time having passed since then
      for (let batch = 0; batch < 3; batch++) {
        worker.publish(runId, 'progress', { step: 10 + batch });
        await worker.flushed();
      }
      const ttl = await redis.ttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(500); // not refreshed by the later batches (half of 600 s has not passed)
      // what reached Redis for the key (this test's own EXPIRE 500 included, its TTLs left out): the five XADDs
      // before the bus's one EXPIRE were one pipeline (a batch per event would put the EXPIRE after the first)
      const sent = () =>
        commands.map(([cmd, , arg]) => (cmd.toLowerCase() === 'expire' ? `expire ${arg}` : cmd.toLowerCase())).filter((c) => c !== 'ttl');
      await waitUntil(() => sent().length >= 10);
      expect(sent()).toEqual(['xadd', 'xadd', 'xadd', 'xadd', 'xadd', 'expire 600', 'expire 500', 'xadd', 'xadd', 'xadd']);
    } finally {
      stop();
      worker.end(runId);
      await worker.flushed();
    }
  });

  /** The commands that reached Redis for a run's stream while `act` ran (EXPIRE with its seconds, TTL reads left out). */
  async function commandsFor(runId: string, act: () => Promise<void>): Promise<string[]> {
    const key = `run-events:${prefix}:${runId}`;
    const { commands, stop } = await monitorRedis(TEST_REDIS_URL, (args) => args[1] === key);
    try {
      await act();
      await redis.ping(); // MONITOR has shown every command sent before this one's answer
      await waitUntil(() => commands.length > 0);
      return commands.map(([cmd, , arg]) => (cmd.toLowerCase() === 'expire' ? `expire ${arg}` : cmd.toLowerCase()));
    } finally {
      stop();
    }
  }

  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('sends the start and steps of a run no one follows here with its result, in one pipeline and in order', async () => {
    const runId = randomUUID();
    const sent = await commandsFor(runId, async () => {
      worker.publish(runId, 'metadata', { run_id: runId });
      await pause(3); // later event-loop turns: without lingering, each of these would be a pipeline of its own
      worker.publish(runId, 'progress', { step: 1 });
      await pause(3);
      worker.publish(runId, 'progress', { step: 2 });
      await pause(3);
      worker.publish(runId, 'result', { response: 'done' });
      worker.end(runId);
      await worker.flushed();
    });
    // one pipeline: no idle expiry after the first XADD, only the ended stream's
    expect(sent).toEqual(['xadd', 'xadd', 'xadd', 'xadd', 'xadd', 'expire 120']);
    const events: RunEvent[] = [];
    for await (const e of api.subscribe(runId)) events.push(e);
    expect(events.map((e) => e.event)).toEqual(['metadata', 'progress', 'progress', 'result']);
  });

  it('does not hold back the events of a run followed here, nor what waits when a follower arrives', async () => {
    const slow = new RedisRunEventBus(redisOptions(TEST_REDIS_URL), { ...options, lingerMs: 5000 });
    const runId = randomUUID();
    const got: RunEvent[] = [];
    try {
      const t0 = Date.now();
      slow.publish(runId, 'metadata', { run_id: runId });
      const reading = (async () => {
        for await (const e of slow.subscribe(runId)) got.push(e); // a follower in the publishing process
      })();
      await waitUntil(() => got.length === 1); // sent when the follower came
      slow.publish(runId, 'progress', { step: 1 });
      await waitUntil(() => got.length === 2);
      expect(Date.now() - t0).toBeLessThan(4000); // neither waited out the linger
      slow.publish(runId, 'result', { response: 'done' });
      slow.end(runId);
      await reading;
      expect(got.map((e) => e.event)).toEqual(['metadata', 'progress', 'result']);
      // each handed over with the JSON it was written as (a writer sends it without encoding it again)
      expect(got.map((e) => e.json)).toEqual(got.map((e) => JSON.stringify(e.data)));
      // with no one following any more, a step lingers until something urgent (here its end) comes; published once
      // the end above has gone out (what is published while a pipeline is out goes with the next one, at once)
      await slow.flushed();
      const later = randomUUID();
      slow.publish(later, 'progress', { step: 1 });
      await pause(300);
      expect(await redis.xlen(`run-events:${prefix}:${later}`)).toBe(0);
      slow.end(later);
      await slow.flushed();
      expect(await redis.xlen(`run-events:${prefix}:${later}`)).toBe(2);
    } finally {
      await slow.onModuleDestroy();
    }
  });

  it('refreshes the idle expiry of a long run once half of it has passed', async () => {
    const short = new RedisRunEventBus(redisOptions(TEST_REDIS_URL), { ...options, idleTtlS: 2 });
    const runId = randomUUID();
    const key = `run-events:${prefix}:${runId}`;
    try {
      short.publish(runId, 'progress', { step: 1 });
      await short.flushed();
      await new Promise((r) => setTimeout(r, 1100)); // over half of the 2 s idle TTL
      expect(await redis.pttl(key)).toBeLessThan(1000);
      short.publish(runId, 'progress', { step: 2 });
      await short.flushed();
      expect(await redis.pttl(key)).toBeGreaterThan(1500);
      expect(await redis.xlen(key)).toBe(2);
    } finally {
      short.end(runId);
      await short.onModuleDestroy();
    }
  });

  it('sets the idle expiry of a live run when a process first writes its stream, not with every batch', async () => {
    const runId = randomUUID();
    const key = `run-events:${prefix}:${runId}`;
    worker.publish(runId, 'metadata', { run_id: runId });
    await worker.flushed();
    expect(await redis.ttl(key)).toBeGreaterThan(options.ttlS);
    await redis.persist(key); // a later batch that sent EXPIRE again would show here
    worker.publish(runId, 'progress', { run_id: runId, step: 1 });
    await worker.flushed();
    expect(await redis.ttl(key)).toBe(-1);
    // another process taking the run over sets it with its own first write
    const other = new RedisRunEventBus(redisOptions(TEST_REDIS_URL), options);
    other.publish(runId, 'metadata', { run_id: runId, attempt: 2 });
    await other.flushed();
    expect(await redis.ttl(key)).toBeGreaterThan(options.ttlS);
    other.end(runId);
    await other.onModuleDestroy();
    expect(await redis.ttl(key)).toBeLessThanOrEqual(options.ttlS);
    expect(await redis.xlen(key)).toBe(4);
  });

  it('finishes at once when the ended run window has expired', async () => {
    const runId = randomUUID();
    worker.publish(runId, 'result', {});
    worker.end(runId);
    await worker.flushed();
    await redis.del(`run-events:${prefix}:${runId}`); // as EXPIRE would
    const started = Date.now();
    const events: RunEvent[] = [];
    for await (const e of api.subscribe(runId)) events.push(e);
    expect(events).toEqual([]);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('keeps a bounded window per run', async () => {
    const runId = randomUUID();
    for (let step = 1; step <= 1000; step++) {
      worker.publish(runId, 'progress', { step });
      if (step % 40 === 0) await worker.flushed(); // Redis trims, not the publisher's own bound on unsent events
    }
    worker.end(runId);
    await worker.flushed();
    const len = await redis.xlen(`run-events:${prefix}:${runId}`);
    // MAXLEN ~ 50: Redis trims whole macro nodes (100 entries by default), never below the window
    expect(len).toBeGreaterThanOrEqual(50);
    expect(len).toBeLessThan(200);
    const events: RunEvent[] = [];
    for await (const e of api.subscribe(runId)) events.push(e);
    expect(steps(events).at(-1)).toBe(1000);
    expect(steps(events)[0]).toBeGreaterThan(800);
    // in order, no gaps within the window
    expect(steps(events)).toEqual(steps(events).map((_, i) => steps(events)[0] + i));
  });

  it('does not let a subscriber hold up publishing, and stops a subscriber on abort', async () => {
    const runId = randomUUID();
    const stop = new AbortController();
    const iterator = api.subscribe(runId, { signal: stop.signal })[Symbol.asyncIterator]();
    const first = iterator.next();
    const t0 = Date.now();
    for (let step = 1; step <= 200; step++) worker.publish(runId, 'token', { step });
    expect(Date.now() - t0).toBeLessThan(100); // publish only queues
    // the 200 go out in one pipeline, trimmed to the window (50) before the subscriber reads: it gets the oldest left
    const got = (await first).value as RunEvent;
    expect(got).toMatchObject({ event: 'token' });
    expect((got.data as { step: number }).step).toBeLessThanOrEqual(200 - options.window + 1);
    stop.abort();
    await expect(iterator.next()).resolves.toMatchObject({ done: true });
    worker.end(runId);
    await worker.flushed();
  });
});

async function waitUntil(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 20));
  }
}
