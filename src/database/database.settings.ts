import { z } from 'zod';

import { parseSentinels } from '../config/redis-options';
import { bool, defineSettings, int, optionalString, optionalUrl, type SettingsOf, variable } from '../config/settings';

/** REDIS_SENTINELS: a list of host:port; unset or blank → none */
const sentinelList = optionalString.transform((v, ctx) => {
  if (v === undefined) return [];
  const parsed = parseSentinels(v);
  if (typeof parsed === 'string') {
    ctx.addIssue({ code: 'custom', message: `a comma-separated list of sentinel host:port; ${parsed}` });
    return z.NEVER;
  }
  return parsed;
});

/** Postgres (external or embedded) and Redis. */
export const databaseSettings = defineSettings({
  module: 'database',
  variables: {
    DATABASE_URL: variable(
      optionalUrl(['postgres', 'postgresql']),
      'Postgres connection string (`postgres://` or `postgresql://`)',
      'unset → embedded Postgres (PGlite) in `DATA_DIR`',
    ),
    DATA_DIR: variable(z.string().default('./data'), 'where the embedded Postgres keeps its files'),
    DB_POOL_SIZE: variable(int(10, 1), 'TypeORM pool size'),
    DB_PREPARED_STATEMENTS: variable(
      bool(true),
      'send parameterised SQL as named prepared statements (parsed and planned once per connection); `false` behind a PgBouncer in transaction mode older than 1.21',
    ),
    DB_MIGRATIONS_RUN: variable(
      bool(true),
      'run the shipped migrations at start-up; `false` when the host runs them itself (`agent-orchestrator-migrate`)',
    ),
    REDIS_URL: variable(
      optionalUrl(['redis', 'rediss']),
      'Redis for the BullMQ run queue, the run event bus, the crons, the LLM cache and rate limits; with `REDIS_SENTINELS` only its user, password, database and `rediss://` are used (its host is not)',
      'unset (and no `REDIS_SENTINELS`) → the inline queue: queued runs execute in this process',
    ),
    REDIS_SENTINELS: variable(
      sentinelList,
      'Redis Sentinel: comma-separated `host:port` of the sentinels (port 26379 when left out); every Redis client asks them for the primary of `REDIS_SENTINEL_NAME` and follows a failover. Enough on its own (no `REDIS_URL` needed)',
      'unset → Redis at `REDIS_URL`',
    ),
    REDIS_SENTINEL_NAME: variable(z.string().trim().min(1).default('mymaster'), 'the master group name the sentinels monitor'),
    REDIS_SENTINEL_PASSWORD: variable(
      optionalString,
      "the sentinels' own password (their `requirepass`); the data nodes' comes from `REDIS_URL`",
      'unset',
    ),
    REDIS_SENTINEL_TLS: variable(bool(false), 'talk to the sentinels over TLS (the data nodes: `rediss://` in `REDIS_URL`)'),
    STARTUP_WAIT_MS: variable(
      int(10_000, 0),
      'how long a starting process waits for `DATABASE_URL` and `REDIS_URL` (or `REDIS_SENTINELS`) to answer; then it exits with a message naming the one that did not',
    ),
  },
  build: (e) => ({
    /** unset → embedded Postgres (PGlite) in `dataDir` */
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    dbPoolSize: e.DB_POOL_SIZE,
    dbPreparedStatements: e.DB_PREPARED_STATEMENTS,
    /** run the shipped migrations at start-up (default); off when the host runs them itself */
    migrationsRun: e.DB_MIGRATIONS_RUN,
    /**
     * Redis is configured when this is set: REDIS_URL, or with sentinels alone `redis://{REDIS_SENTINEL_NAME}`
     * (with sentinels only its user, password, db and scheme are used). Unset → runs execute in-process.
     */
    redisUrl: e.REDIS_URL ?? (e.REDIS_SENTINELS.length ? `redis://${encodeURIComponent(e.REDIS_SENTINEL_NAME)}` : undefined),
    /** REDIS_SENTINELS: every Redis client asks these for the primary (src/config/redis-options.ts) */
    redisSentinel: e.REDIS_SENTINELS.length
      ? { sentinels: e.REDIS_SENTINELS, name: e.REDIS_SENTINEL_NAME, password: e.REDIS_SENTINEL_PASSWORD, tls: e.REDIS_SENTINEL_TLS }
      : undefined,
    /** STARTUP_WAIT_MS: start-up gives up on an unreachable database or Redis after this long */
    startupWaitMs: e.STARTUP_WAIT_MS,
  }),
});

declare module '../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: this slice's fields on AppConfig
  interface AppConfig extends SettingsOf<typeof databaseSettings> {}
}
