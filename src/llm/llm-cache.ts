import { createHash } from 'node:crypto';

import { BaseCache, deserializeStoredGeneration, serializeGeneration } from '@langchain/core/caches';
import type { Generation } from '@langchain/core/outputs';
import type Redis from 'ioredis';

import { currentTenant } from '../auth/tenant';
import { phase } from '../observability/phases';

/**
 * Prefix of the model part of a key (MeteredChatOpenAI) for a call that cannot be in the cache yet: its prompt
 * holds a tool call the model has just made, whose fresh id is part of the prompt key. No lookup (no round trip
 * on the call's path); its answer is still stored, under the key without the prefix, for a replay of the turn.
 */
export const NO_LOOKUP = '\u0000no-lookup:';

export interface CacheStats {
  hit(): void;
  miss(): void;
}

/** Where cached generations live: Redis (shared by every worker) or this process. */
export interface CacheStore {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
}

/**
 * LangChain's cache interface for chat models. The key is LangChain's own: the prompt and the model's
 * serialized call parameters (model, temperature, max tokens, bound tools…), hashed. Only successful
 * generations reach `update`, so errors are never cached. A hit is marked in `response_metadata.cache_hit`
 * so metering can tell it from a real call. Entries are kept apart per tenant (the run's tenant, see keyOf).
 */
export class LlmCache extends BaseCache<Generation[]> {
  constructor(
    private readonly store: CacheStore,
    private readonly ttlSeconds: number,
    private readonly stats: CacheStats,
    /** keeps deployments (and test suites) sharing one Redis apart */
    private readonly namespace = 'agents',
  ) {
    super();
  }

  async lookup(prompt: string, llmKey: string): Promise<Generation[] | null> {
    if (llmKey.startsWith(NO_LOOKUP)) {
      this.stats.miss();
      return null;
    }
    const key = this.keyOf(prompt, llmKey);
    if (key === undefined) {
      this.stats.miss();
      return null;
    }
    const raw = await phase('llm_cache_lookup', () => this.store.get(key).catch(() => null));
    if (!raw) {
      this.stats.miss();
      return null;
    }
    this.stats.hit();
    return (JSON.parse(raw) as Parameters<typeof deserializeStoredGeneration>[0][]).map((g) => {
      const gen = deserializeStoredGeneration(g) as Generation & { message?: { response_metadata?: Record<string, unknown> } };
      if (gen.message) gen.message.response_metadata = { ...gen.message.response_metadata, cache_hit: true };
      return gen;
    });
  }

  /**
   * Per tenant: a run's model calls happen inside runInTenant, so one tenant never gets another's answers. A call
   * whose tenant is not known (outside a run, or code in a graph that replaced LangChain's context, e.g. langsmith's
   * `withRunTree`) has no key: it is neither looked up nor stored.
   */
  private keyOf(prompt: string, llmKey: string): string | undefined {
    const tenant = currentTenant();
    if (tenant === undefined) return undefined;
    return `${this.namespace}:llmcache:${tenant}:${createHash('sha256').update(llmKey).update('\u0000').update(prompt).digest('hex')}`;
  }

  /**
   * Not awaited: LangChain waits for `update` before handing the answer back, and a cache write must not add a
   * round trip to a miss (a lost write only costs a later miss).
   */
  async update(prompt: string, llmKey: string, value: Generation[]): Promise<void> {
    const key = this.keyOf(prompt, llmKey.startsWith(NO_LOOKUP) ? llmKey.slice(NO_LOOKUP.length) : llmKey);
    if (key === undefined) return;
    void this.store.set(key, JSON.stringify(value.map(serializeGeneration)), this.ttlSeconds).catch(() => undefined);
  }
}

/** How long a cache write waits for others to go out with it (RedisCacheStore). */
const WRITE_LINGER_MS = 20;
/** Writes waiting beyond this many go out at once. */
const MAX_WAITING_WRITES = 256;

/**
 * Cached generations in Redis. A write is not on any call's path (LlmCache.update does not await it), so writes
 * wait up to WRITE_LINGER_MS and go out together in one pipeline: a react turn's two answers cost one write to the
 * socket instead of two, and under load the writes of many turns share one. A lookup of a key still waiting is
 * answered from here. A write lost with the process only costs a later miss; `close` sends what waits.
 */
export class RedisCacheStore implements CacheStore {
  private readonly waiting = new Map<string, { value: string; ttlSeconds: number }>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly redis: Redis,
    private readonly lingerMs = WRITE_LINGER_MS,
  ) {}

  async get(key: string): Promise<string | null> {
    return this.waiting.get(key)?.value ?? this.redis.get(key);
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    this.waiting.delete(key); // the newest value of a key goes out last
    this.waiting.set(key, { value, ttlSeconds });
    if (this.waiting.size >= MAX_WAITING_WRITES) return this.send();
    this.timer ??= setTimeout(() => void this.send(), this.lingerMs).unref();
  }

  /** Sends what waits (shutdown). */
  close(): Promise<void> {
    return this.send();
  }

  private async send(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.waiting.size === 0) return;
    const p = this.redis.pipeline();
    for (const [key, { value, ttlSeconds }] of this.waiting) p.set(key, value, 'EX', ttlSeconds);
    this.waiting.clear();
    await p.exec().catch(() => undefined); // a cache outage only costs misses
  }
}

/** Bounded in-process store: expired entries are dropped on read, the oldest when full. */
export class MemoryCacheStore implements CacheStore {
  private readonly entries = new Map<string, { value: string; expires: number }>();

  constructor(private readonly maxEntries: number) {}

  async get(key: string): Promise<string | null> {
    const e = this.entries.get(key);
    if (!e) return null;
    if (e.expires < Date.now()) {
      this.entries.delete(key);
      return null;
    }
    return e.value;
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    this.entries.delete(key);
    this.entries.set(key, { value, expires: Date.now() + ttlSeconds * 1000 });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}
