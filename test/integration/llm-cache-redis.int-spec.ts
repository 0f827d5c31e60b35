import IORedis from 'ioredis';

import { redisOptions } from '../../src/config/redis-options';
import { RedisCacheStore } from '../../src/llm/llm-cache';
import { TEST_REDIS_URL, uniqueQueuePrefix } from '../support/infra';

/** The LLM cache's Redis store on the real Redis: writes wait and go out together, reads see them meanwhile. */
describe('RedisCacheStore', () => {
  const prefix = uniqueQueuePrefix('llmcache');
  const redis = new IORedis(redisOptions(TEST_REDIS_URL));

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('sends the writes of a linger window in one pipeline, with their expiry, and answers reads of waiting keys', async () => {
    const store = new RedisCacheStore(redis, 50);
    // the real pipeline, recorded: how many commands each one carried when it was sent
    const sent: number[] = [];
    const pipeline = redis.pipeline.bind(redis);
    const spy = jest.spyOn(redis, 'pipeline').mockImplementation((...args) => {
      const p = pipeline(...args);
      const exec = p.exec.bind(p);
      p.exec = (...a) => {
        sent.push(p.length);
        return exec(...a);
      };
      return p;
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
    spy.mockRestore();
    // one pipeline, one SET per key (the newest value, as read above)
    expect(sent).toEqual([2]);
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
