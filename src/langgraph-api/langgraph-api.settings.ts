import { z } from 'zod';

import { bool, defineSettings, int, optionalString, type SettingsOf, variable } from '../config/settings';

/** Node's timers hold at most 2^31-1 ms (24.8 days); a longer delay would fire at once. */
const LONGEST_TIMER_S = Math.floor((2 ** 31 - 1) / 1000);

/** The LangGraph API dialect. */
export const langgraphApiSettings = defineSettings({
  module: 'langgraph-api',
  variables: {
    WEBHOOK_ALLOWED_HOSTS: variable(
      optionalString,
      'LangGraph API run and cron webhooks: hosts (exact, comma-separated) allowed although they resolve to private or loopback addresses',
      'none',
    ),
    RUN_MAX_DELAY_S: variable(
      z.coerce.number().int().min(0).max(LONGEST_TIMER_S).default(259_200),
      `longest \`after_seconds\` of a LangGraph API run (then 422 \`RUN_DELAY_TOO_LONG\`); at most ${LONGEST_TIMER_S} (24.8 days, Node's longest timer)`,
      '`259200` (3 days)',
    ),
    CRON_MIN_INTERVAL_S: variable(
      int(60, 1),
      "shortest time between two ticks of a cron's schedule (over its next 20 ticks; then 422 `CRON_TOO_FREQUENT`)",
    ),
    CRON_MAX_PER_TENANT: variable(int(100, 1), 'crons one tenant may have (then 422 `CRON_LIMIT_REACHED`)'),
    STORE_MAX_KEY_CHARS: variable(
      int(1024, 1),
      'longest `/store` item key, and namespace label, accepted by `PUT /store/items` (then 422 `STORE_KEY_TOO_LONG`)',
    ),
    STORE_MAX_VALUE_BYTES: variable(
      int(262_144, 2),
      'largest `/store` item value (its JSON, in bytes) accepted by `PUT /store/items` (then 413 `STORE_VALUE_TOO_LARGE`)',
    ),
    LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS: variable(
      int(120_000, 1000),
      "longest parse of a graph module's TypeScript source for `/assistants/{id}/schemas` of an `Annotation` state (then the schemas are derived from the state's channels)",
    ),
    LANGGRAPH_TRUNCATE_ENABLED: variable(
      bool(false),
      "`POST /internal/truncate` (the reference server's reset of runs, threads, assistants, store, checkpoints; the caller's tenant only): for test set-ups, never in production; off, the route does not exist (404)",
    ),
  },
  build: (e) => ({
    /** WEBHOOK_ALLOWED_HOSTS: webhook hosts allowed although private (run webhooks are refused on private networks) */
    webhookAllowedHosts: (e.WEBHOOK_ALLOWED_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
    /** RUN_MAX_DELAY_S: the longest `after_seconds` a run may ask for */
    runMaxDelayS: e.RUN_MAX_DELAY_S,
    /** limits of `/runs/crons`: the shortest tick interval and crons per tenant */
    crons: { minIntervalS: e.CRON_MIN_INTERVAL_S, maxPerTenant: e.CRON_MAX_PER_TENANT },
    /** limits of `PUT /store/items`: key (and namespace label) length, value size */
    store: { maxKeyChars: e.STORE_MAX_KEY_CHARS, maxValueBytes: e.STORE_MAX_VALUE_BYTES },
    /** LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS: how long one graph module's static schema parse may take */
    schemaResolveTimeoutMs: e.LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS,
    /** LANGGRAPH_TRUNCATE_ENABLED: POST /internal/truncate is routed */
    truncateEnabled: e.LANGGRAPH_TRUNCATE_ENABLED,
  }),
});

declare module '../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: this slice's fields on AppConfig
  interface AppConfig extends SettingsOf<typeof langgraphApiSettings> {}
}
