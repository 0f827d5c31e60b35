import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * `npm run bench` compiles `test/support` with tsconfig.bench.json, whose types are Node's only: a support file that
 * uses the test runner's globals (describe, beforeAll, jest…) must be in that config's `exclude`, or the bench does
 * not build.
 */
const ROOT = path.resolve(__dirname, '..');
const config = JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.bench.json'), 'utf8')) as { exclude: string[] };
const RUNNER_GLOBAL = /(?<![.\w])(?:describe|it|test|beforeAll|afterAll|beforeEach|afterEach|expect)\(|(?<![.\w])jest\./;

describe('the bench build', () => {
  it('excludes every test/support file that uses the test runner', () => {
    const support = readdirSync(path.join(ROOT, 'test/support')).filter((f) => f.endsWith('.ts'));
    const usingRunner = support
      .map((f) => `test/support/${f}`)
      .filter((f) => RUNNER_GLOBAL.test(readFileSync(path.join(ROOT, f), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')));
    expect(usingRunner).toContain('test/support/service-fixture.ts'); // the check sees what it is for
    expect(usingRunner.filter((f) => !config.exclude.includes(f))).toEqual([]);
  });
});
