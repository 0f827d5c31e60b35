/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS module: jest.config.js loads it by path (testSequencer) */
/* global require, module */
const Sequencer = require('@jest/test-sequencer').default;

/**
 * The files that take half a minute or more, longest first (CI seconds: `npm test -- --json`, endTime - startTime,
 * with three request workers). Jest orders by the durations in its cache, which a clean clone (CI) does not have,
 * and then by file size, largest first: a short file that runs for minutes (the authorization matrices are a dozen
 * lines over a rule table) then started last, on a worker of its own, and the request tier waited for it alone.
 * Longest first, the last files to start are short ones, and the workers end close together.
 */
const SLOW_FIRST = [
  'test/embed/nest-host-pack.e2e-spec.ts', // ~200 s: two npm installs, two compiles, two hosts started
  'test/security/authorization-matrix-tenant-isolation.spec.ts', // 120–180 s each: every route × case × principal
  'test/security/authorization-matrix.spec.ts',
  'test/security/authorization-matrix-custom-auth.spec.ts',
  'test/e2e/web-concurrency.e2e-spec.ts', // ~130 s
  'test/e2e/graph-schemas-folder.e2e-spec.ts', // ~100 s: two TypeScript programs over LangGraph's typings
  'test/browser/console.browser-spec.ts', // ~90 s
  'test/conformance/schemas-source.spec.ts', // small files that parse TypeScript types: a minute each under load
  'test/langgraph-api/mcp-first-call.spec.ts',
  'test/langgraph-api/runs-redis.spec.ts',
  'test/langgraph-api/crons.spec.ts',
  'test/e2e/startup-errors.e2e-spec.ts',
  'test/e2e/outage.e2e-spec.ts',
  'test/integration/model-client.int-spec.ts',
];

class SlowFirstSequencer extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    const rank = (test) => {
      const i = SLOW_FIRST.findIndex((file) => test.path.endsWith(file));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    return [...sorted].sort((a, b) => rank(a) - rank(b)); // stable: the rest keep jest's order
  }
}

module.exports = SlowFirstSequencer;
module.exports.SLOW_FIRST = SLOW_FIRST;
