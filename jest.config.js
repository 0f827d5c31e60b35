/** Three tiers: unit tests beside the code, integration against the real local Postgres/Redis, e2e over HTTP. */
const transform = { '^.+\\.ts$': ['@swc/jest'] };
const common = { transform, testEnvironment: 'node', moduleFileExtensions: ['ts', 'js', 'json'] };
module.exports = {
  testTimeout: 60000,
  // Worker processes even on two cores (jest would otherwise run all files in band, inside its own process), each
  // replaced once it holds more than this after a file: the e2e files boot whole apps, and what a library keeps per
  // process (Nest, LangGraph, OpenTelemetry globals) adds up over a hundred files.
  maxWorkers: 2,
  workerIdleMemoryLimit: '1200MB',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.int-spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts', '<rootDir>/test/embed/**/*.e2e-spec.ts'] },
    { ...common, displayName: 'security', testMatch: ['<rootDir>/test/security/**/*.spec.ts'] },
    { ...common, displayName: 'reliability', testMatch: ['<rootDir>/test/reliability/**/*.spec.ts'] },
    { ...common, displayName: 'langgraph-api', testMatch: ['<rootDir>/test/langgraph-api/**/*.spec.ts'] },
    // the web console in a real browser (playwright-core driving /usr/bin/chromium)
    { ...common, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.browser-spec.ts'] },
  ],
};
