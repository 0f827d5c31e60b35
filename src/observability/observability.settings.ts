import { z } from 'zod';

import { defineSettings, optionalString, type SettingsOf, variable } from '../config/settings';

/** Logs and traces. */
export const observabilitySettings = defineSettings({
  module: 'observability',
  variables: {
    LOG_LEVEL: variable(
      z.enum(['error', 'warn', 'log', 'debug', 'verbose']).default('log'),
      '`error`, `warn`, `log`, `debug` (adds model prompts and tool outputs, truncated) or `verbose`',
    ),
    LOG_FORMAT: variable(
      z
        .enum(['json', 'pretty', 'text'])
        .default('json')
        .transform((v) => (v === 'text' ? 'pretty' : v)),
      '`json` (one object a line) or `pretty` (coloured, for a terminal; `text` is the same)',
    ),
    OTEL_EXPORTER_OTLP_ENDPOINT: variable(
      optionalString,
      'OpenTelemetry traces exported over OTLP/HTTP to `<endpoint>/v1/traces` (e.g. `http://127.0.0.1:4318`); see "Observability"',
      'unset (tracing off)',
    ),
    OTEL_SERVICE_NAME: variable(z.string().default('agent-orchestrator'), 'the service name on exported spans'),
    MEMORY_STATS_FILE: variable(
      optionalString,
      'soak tests (`npm run bench:soak`): on SIGUSR2 the process collects garbage (when started with `node --expose-gc`) and appends `{"pid","heap_used_bytes","rss_bytes","gc"}` as a line to this file; SIGUSR2 then no longer stops it',
      'unset (off)',
    ),
    WORKER_HEALTH_PORT: variable(
      z.coerce.number().int().min(1).max(65535).optional(),
      "`node dist/worker.js` only (it serves no HTTP otherwise): answer `GET /health/live` (200 while the process runs) and `GET /health/ready` (database and Redis up, else 503) on this port, on `HOST`, for an orchestrator's probes (`deploy/k8s`)",
      'unset (no HTTP)',
    ),
  },
  build: (e) => ({
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    /** OpenTelemetry: spans exported over OTLP/HTTP to `endpoint` when set; tracing is off otherwise */
    tracing: { endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: e.OTEL_SERVICE_NAME },
    /** where SIGUSR2 writes the heap after a forced collection (memory-stats-signal.ts); unset = off */
    memoryStatsFile: e.MEMORY_STATS_FILE,
    /** worker.ts: the port of its `/health/live` and `/health/ready` (health-server.ts); unset = none */
    workerHealthPort: e.WORKER_HEALTH_PORT,
  }),
});

declare module '../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: this slice's fields on AppConfig
  interface AppConfig extends SettingsOf<typeof observabilitySettings> {}
}
