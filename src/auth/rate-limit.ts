import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { ExecutionContext, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerModuleOptions, type ThrottlerStorage, ThrottlerStorageService } from '@nestjs/throttler';
import IORedis from 'ioredis';

import type { AppConfig } from '../config/app-config';
import { redisOptions, type RedisTarget } from '../config/redis-options';
import type { AuthedRequest } from './auth.middleware';
import { isLivenessPath } from './open-paths';

type StorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * Where rate-limit counters live: Redis when REDIS_URL is set (shared by every API process), else this
 * process. A Redis outage lets requests through (fail open) rather than failing them.
 */
export class RateLimitStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimit');
  private readonly memory = new ThrottlerStorageService();
  private readonly redis?: IORedis;
  private readonly redisStorage?: ThrottlerStorageRedisService;

  constructor(redis: RedisTarget) {
    if (!redis.redisUrl) return;
    this.redis = new IORedis({ ...redisOptions(redis), maxRetriesPerRequest: 1, enableOfflineQueue: false });
    this.redis.on('error', () => undefined);
    this.redisStorage = new ThrottlerStorageRedisService(this.redis);
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, name: string): Promise<StorageRecord> {
    if (!this.redisStorage) return this.memory.increment(key, ttl, limit, blockDuration, name);
    try {
      return await this.redisStorage.increment(key, ttl, limit, blockDuration, name);
    } catch (err) {
      this.logger.warn(`rate-limit store unreachable, request let through: ${(err as Error).message}`);
      return { totalHits: 0, timeToExpire: 0, isBlocked: false, timeToBlockExpire: 0 };
    }
  }

  onApplicationShutdown(): void {
    this.memory.onApplicationShutdown();
    this.redis?.disconnect();
  }
}

/**
 * RATE_LIMIT_PER_MINUTE per API key; 0 turns it off. Requests without a key (no keys configured, /health,
 * public /metrics) are not limited.
 */
export function rateLimitOptions(config: AppConfig): ThrottlerModuleOptions {
  const limit = config.security.rateLimitPerMinute;
  return {
    throttlers: [{ name: 'default', ttl: 60_000, limit: Math.max(limit, 1) }],
    storage: new RateLimitStorage(config),
    skipIf: (ctx: ExecutionContext) => {
      const req = ctx.switchToHttp().getRequest<AuthedRequest>();
      return limit === 0 || !trackerOf(req) || isLivenessPath(req.path);
    },
    generateKey: (_ctx: ExecutionContext, tracker: string) => `${config.queuePrefix}:ratelimit:${tracker}`,
  };
}

/** Whose budget a request spends: its API key's, or its token's user's (in the token's tenant); none without either. */
function trackerOf(req: Pick<AuthedRequest, 'apiKeyId' | 'principal'>): string | undefined {
  if (req.apiKeyId) return `key:${req.apiKeyId}`;
  const p = req.principal;
  return p?.userId ? `user:${p.tenantId}:${p.userId}` : undefined;
}

/** One budget per key (or token user) across all routes and processes; 429 `TOO_MANY_REQUESTS` with `retry-after` (seconds). */
@Injectable()
export class KeyThrottlerGuard extends ThrottlerGuard {
  protected override getTracker(req: Record<string, unknown>): Promise<string> {
    return Promise.resolve(trackerOf(req as Pick<AuthedRequest, 'apiKeyId' | 'principal'>) ?? 'key:none');
  }
}
