import IORedis from 'ioredis';

import { redisOptions } from '../../src/config/redis-options';
import { RedisCacheStore } from '../../src/llm/llm-cache';
import { TEST_REDIS_URL, uniqueQueuePrefix } from '../support/infra';

/** The LLM cache's Redis store on the real Redis: writes wait and go out together, reads see them meanwhile. */
describe('RedisCacheStore', () => {
  const prefix = uniqueQueuePrefix('llmcache');
  const redis = new IORedis(redisOptions(TEST_REDIS_URL));
  const monitor = new IORedis(redisOptions(TEST_REDIS_URL));

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
    monitor.disconnect();
  });

  it('sends the writes of a linger window in one pipeline, with their expiry, and answers reads of waiting keys', async () => {
    const store = new RedisCacheStore(redis, 50);
    const commands: string[][] = [];
    const watching = await monitor.monitor();
    watching.on('monitor', (_t: string, args: string[]) => {
      if (args.some((a) => a.startsWith(prefix))) commands.push(args);
    });
    await store.set(`${prefix}:a`, 'first', 60);
    await store.set(`${prefix}:b`, 'second', 60);
    await store.set(`${prefix}:a`, 'newest', 60);
    // waiting: not in Redis yet, but read from the store
    expect(await redis.get(`${prefix}:a`)).toBeNull();
    expect(await store.get(`${prefix}:a`)).toBe('newest');
    await new Promise((r) => setTimeout(r, 150));
    expect(await redis.get(`${prefix}:a`)).toBe('newest');
    expect(await redis.get(`${prefix}:b`)).toBe('second');
    const ttl = await redis.ttl(`${prefix}:b`);
    expect(ttl).toBeGreaterThan(50);
    expect(ttl).toBeLessThanOrEqual(60);
    watching.disconnect();
    // one SET per key (the newest value), both sent together after the window
    const sets = commands.filter((c) => c[0].toLowerCase() === 'set');
    expect(sets.map((c) => [c[1], c[2]])).toEqual([
      [`${prefix}:b`, 'second'],
      [`${prefix}:a`, 'newest'],
    ]);
  });

  it('sends what waits when closed, and a read of a key not waiting goes to Redis', async () => {
    const store = new RedisCacheStore(redis, 60_000);
    await store.set(`${prefix}:c`, 'kept', 60);
    expect(await redis.get(`${prefix}:c`)).toBeNull();
    await store.close();
    expect(await redis.get(`${prefix}:c`)).toBe('kept');
    await redis.set(`${prefix}:d`, 'from redis');
    expect(await store.get(`${prefix}:d`)).toBe('from redis');
  });
});
