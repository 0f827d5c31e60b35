/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS module: jest.config.js loads it by path (testSequencer) */
/* global require, module */
const Sequencer = require('@jest/test-sequencer').default;

/**
 * The files that take half a minute or more (measured: `npm test -- --json`, endTime - startTime), started first.
 * Jest orders by the durations in its cache, which a clean clone (CI) does not have, and then by file size: the
 * two-minute nest-host-pack file could then begin on the last free worker near the end of the request tier and
 * stretch it by its whole length.
 */
const SLOW_FIRST = [
  'test/embed/nest-host-pack.e2e-spec.ts', // two npm installs, two compiles, two hosts started (~125 s)
  'test/e2e/web-concurrency.e2e-spec.ts', // ~80 s
  'test/langgraph-api/runs-redis.spec.ts',
  'test/langgraph-api/crons.spec.ts',
  'test/browser/console.browser-spec.ts',
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
