import { z } from 'zod';

import { bool, defineSettings, int, optionalUrl, type SettingsOf, variable } from '../config/settings';

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
      'Redis for the BullMQ run queue, the run event bus, the LLM cache and rate limits',
      'unset → queued runs execute in-process',
    ),
    STARTUP_WAIT_MS: variable(
      int(10_000, 0),
      'how long a starting process waits for `DATABASE_URL` and `REDIS_URL` to answer; then it exits with a message naming the one that did not',
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
    /** unset → runs execute in-process */
    redisUrl: e.REDIS_URL,
    /** STARTUP_WAIT_MS: start-up gives up on an unreachable database or Redis after this long */
    startupWaitMs: e.STARTUP_WAIT_MS,
  }),
});

declare module '../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: this slice's fields on AppConfig
  interface AppConfig extends SettingsOf<typeof databaseSettings> {}
}
