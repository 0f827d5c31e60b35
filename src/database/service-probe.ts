import IORedis from 'ioredis';
import { Client } from 'pg';

import type { AppConfig } from '../config/app-config';
import { redisOptions, type RedisTarget } from '../config/redis-options';
import { POOLER_UNAVAILABLE } from './pooler-errors';

/**
 * Start-up's first step: is the configured Postgres (`DATABASE_URL`) and Redis (`REDIS_URL`, or the primary the
 * sentinels of `REDIS_SENTINELS` name) answering? Each is
 * tried until `STARTUP_WAIT_MS` has passed (a compose stack starts them together); then the process stops with a
 * message that names the setting, where it points (without credentials) and the last error — instead of a
 * client retrying forever in the background.
 */
export class ServiceUnreachableError extends Error {
  /** `place`: where the setting points, without credentials (`where`) */
  constructor(setting: string, place: string, waitedMs: number, cause: string, how: 'refused' | 'silent' = 'silent') {
    super(
      how === 'refused'
        ? `${setting} (${place}) refused the connection: ${cause}`
        : `${setting} (${place}) did not answer within ${waitedMs} ms (STARTUP_WAIT_MS): ${cause}`,
    );
    this.name = 'ServiceUnreachableError';
  }
}

/** scheme, host and port of a URL: never its user or password */
function where(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname.length > 1 ? u.pathname : ''}`;
}

/**
 * An answer that waiting will not change: a Postgres error code (bad role, password, database) or a Redis refusal;
 * not PgBouncer's while Postgres behind it is still starting.
 */
function isFinal(err: unknown): boolean {
  if (err instanceof Error && POOLER_UNAVAILABLE.test(err.message)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return !['57P03', '53300'].includes(code); // starting up, too many clients
  return err instanceof Error && /^(NOAUTH|WRONGPASS|ERR )/.test(err.message);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function tryPostgres(url: string, timeoutMs: number): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function tryRedis(target: RedisTarget, timeoutMs: number): Promise<void> {
  const redis = new IORedis({
    ...redisOptions(target),
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    sentinelRetryStrategy: () => null,
    enableOfflineQueue: false,
  });
  let seen: Error | undefined; // the socket's error (ECONNREFUSED …) says more than the "Connection is closed" connect() rejects with
  redis.on('error', (err: Error) => (seen ??= err));
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw seen ?? err;
  } finally {
    redis.disconnect();
  }
}

async function waitFor<T>(
  setting: string,
  place: string,
  target: T,
  waitMs: number,
  attempt: (target: T, timeoutMs: number) => Promise<void>,
) {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return await attempt(target, Math.max(500, Math.min(3000, deadline - Date.now())));
    } catch (err) {
      const cause = err instanceof Error ? err.message || (err as NodeJS.ErrnoException).code || err.name : String(err);
      if (isFinal(err)) throw new ServiceUnreachableError(setting, place, 0, cause, 'refused');
      if (Date.now() >= deadline) throw new ServiceUnreachableError(setting, place, waitMs, cause);
      await sleep(Math.min(500, Math.max(0, deadline - Date.now())));
    }
  }
}

/** Resolves once every configured service answers; throws ServiceUnreachableError naming the first that does not. */
export async function probeServices(
  config: Pick<AppConfig, 'databaseUrl' | 'redisUrl' | 'redisSentinel' | 'startupWaitMs'>,
): Promise<void> {
  const sentinel = config.redisSentinel;
  await Promise.all([
    config.databaseUrl
      ? waitFor('DATABASE_URL', where(config.databaseUrl), config.databaseUrl, config.startupWaitMs, tryPostgres)
      : undefined,
    config.redisUrl
      ? sentinel
        ? waitFor('REDIS_SENTINELS', sentinelsPlace(sentinel), config, config.startupWaitMs, tryRedis)
        : waitFor('REDIS_URL', where(config.redisUrl), config, config.startupWaitMs, tryRedis)
      : undefined,
  ]);
}

/** the sentinels as the error names them: `h1:26379,h2:26379 (master mymaster)` */
function sentinelsPlace(s: NonNullable<AppConfig['redisSentinel']>): string {
  const hosts = s.sentinels.map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`).join(',');
  return `${hosts}, master ${s.name}`;
}
