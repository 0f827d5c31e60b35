/** Three tiers: unit tests beside the code, integration against the real local Postgres/Redis, e2e over HTTP. */
const transform = {
  '^.+\\.ts$': ['@swc/jest'],
  // jose (v6) ships ES modules only: Node ≥ 20.19 requires them natively, jest (before Node 24.9) cannot
  '/node_modules/jose/.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
};
/** every entry point registers the settings slices (src/settings/all-settings.ts) before it builds an AppConfig; so does each test file */
const settings = '<rootDir>/src/settings/all-settings.ts';
const common = {
  transform,
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  setupFiles: [settings],
};
/** the service as `main.ts` starts it (test/support/shipped-process.ts) */
const shipped = { ...common, setupFiles: [settings, '<rootDir>/test/support/shipped-process.ts'] };
/**
 * Run again with the service behind a real PgBouncer in transaction mode (scripts/test.ts's last tier, which
 * starts one and sets TEST_PGBOUNCER to its host:port): crash takeover, a Postgres outage, crons, the LangGraph
 * API's runs, streams and threads, the run event bus. The fault suites one file at a time, like in their own tier
 * (project `pgbouncer-faults`); the request-level files beside each other, like in theirs (project `pgbouncer`).
 */
const VIA_PGBOUNCER = [
  // one or two files per area, to keep CI under its 20 minutes (worker-crash, assistants-threads-store and
  // bounded-schedules also passed through PgBouncer when this tier was built; add a file here to run it through)
  'test/langgraph-api/crons.spec.ts', // crons (the per-tenant transaction lock)
  'test/langgraph-api/runs.spec.ts', // the LangGraph API
  'test/langgraph-api/runs-redis.spec.ts', // the event bus over Redis, streams resumed on another API process
  'test/e2e/job-events-worker.e2e-spec.ts', // the job event bus with separate workers
];
const VIA_PGBOUNCER_ALONE = [
  'test/reliability/takeover.spec.ts', // crash takeover
  'test/reliability/postgres-reset.spec.ts', // a Postgres outage behind the pooler
];
const through = (files) => files.map((f) => `<rootDir>/${f}`);
module.exports = {
  testTimeout: 60000,
  // One worker process, replaced once it holds more than this after a file. Left to itself jest runs every file
  // in band on a two-core machine, inside its own process, which then keeps what each e2e file's app leaves
  // behind (Nest, LangGraph, OpenTelemetry globals) and ran out of heap. One file at a time keeps the timing-
  // sensitive fault suites (worker kills, Redis and Postgres cuts) alone on the machine. `npm test` (scripts/test.ts)
  // runs the unit project in a jest run of its own with more workers.
  maxWorkers: 1,
  testSequencer: '<rootDir>/test/support/slow-first-sequencer.js',
  workerIdleMemoryLimit: '1200MB',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.int-spec.ts'] },
    { ...shipped, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'] },
    { ...common, displayName: 'embed', testMatch: ['<rootDir>/test/embed/**/*.e2e-spec.ts'] },
    { ...shipped, displayName: 'security', testMatch: ['<rootDir>/test/security/**/*.spec.ts'] },
    { ...shipped, displayName: 'reliability', testMatch: ['<rootDir>/test/reliability/**/*.spec.ts'] },
    { ...shipped, displayName: 'langgraph-api', testMatch: ['<rootDir>/test/langgraph-api/**/*.spec.ts'] },
    // this service beside the reference LangGraph server (@langchain/langgraph-api from npm), diffing what a client sees
    { ...common, displayName: 'conformance', testMatch: ['<rootDir>/test/conformance/**/*.spec.ts'] },
    // the web console in a real browser (playwright-core driving /usr/bin/chromium)
    { ...common, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.browser-spec.ts'] },
    ...(process.env.TEST_PGBOUNCER
      ? [
          { ...shipped, displayName: 'pgbouncer', testMatch: through(VIA_PGBOUNCER) },
          { ...shipped, displayName: 'pgbouncer-faults', testMatch: through(VIA_PGBOUNCER_ALONE) },
        ]
      : []),
  ],
};
