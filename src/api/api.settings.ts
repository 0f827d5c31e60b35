import { z } from 'zod';

import { bool, defineSettings, int, processCount, type SettingsOf, variable } from '../config/settings';

/** The HTTP listener and what it accepts. */
export const apiSettings = defineSettings({
  module: 'api',
  variables: {
    NODE_ENV: variable(z.string().default('development'), 'the runtime environment, as Node tooling reads it'),
    PORT: variable(int(3000), 'HTTP port'),
    HOST: variable(z.string().default('0.0.0.0'), 'HTTP listen address'),
    WEB_CONCURRENCY: variable(
      processCount,
      'API processes `node dist/main.js` starts, sharing the port (`node:cluster`: a primary forks them, hands them connections in turn, restarts one that dies, forwards SIGTERM/SIGINT); a positive integer or `auto` (one per core this process may use: the CPUs, or a container CPU limit, rounded up). Needs `DATABASE_URL` and `REDIS_URL`: on the embedded database or without Redis it warns and runs one process. The primary runs the migrations once before it forks',
    ),
    PHASE_TIMINGS: variable(
      bool(false),
      'per-phase timings of each request in its `Server-Timing` header (`npm run bench -- --breakdown`)',
    ),
    MAX_MESSAGE_CHARS: variable(int(32_000, 1), 'longest accepted message (then 413 `MESSAGE_TOO_LARGE`)'),
    MAX_BODY_BYTES: variable(int(1_048_576, 1024), 'largest accepted JSON body (then 413 `PAYLOAD_TOO_LARGE`)'),
  },
  build: (e) => ({
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    /** WEB_CONCURRENCY: API processes sharing the port (cluster.ts: one unless Postgres and Redis are external) */
    webConcurrency: e.WEB_CONCURRENCY,
    /** PHASE_TIMINGS: each response carries its phases in `Server-Timing` (benchmarks) */
    phaseTimings: e.PHASE_TIMINGS,
    maxMessageChars: e.MAX_MESSAGE_CHARS,
    maxBodyBytes: e.MAX_BODY_BYTES,
  }),
});

declare module '../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: this slice's fields on AppConfig
  interface AppConfig extends SettingsOf<typeof apiSettings> {}
}
