import { readFileSync } from 'node:fs';
import path from 'node:path';

// semver comes with the toolchain (jest, eslint and the Nest CLI depend on it); it ships no types of its own
const semver = require('semver') as { minVersion(range: string): { version: string } | null; satisfies(v: string, range: string): boolean };

const ROOT = path.resolve(__dirname, '../..');
const json = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));

/** One Node range: the oldest Node the package says it runs on is one every installed package accepts. */
describe('the Node range of package.json', () => {
  const pkg = json('package.json');
  const lock = json('package-lock.json') as { packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> };
  const oldest = semver.minVersion(pkg.engines.node)!.version;

  it('is accepted by every package of the lock file, dev dependencies included', () => {
    const refusing = Object.entries(lock.packages)
      .filter(([name, entry]) => name && !Array.isArray(entry.engines) && entry.engines?.node)
      .filter(([, entry]) => !semver.satisfies(oldest, (entry.engines as { node: string }).node))
      .map(
        ([name, entry]) =>
          `${name.replace(/^.*node_modules\//, '')}@${entry.version} wants Node ${(entry.engines as { node: string }).node}`,
      );
    expect(refusing).toEqual([]);
  });

  it('the reference server the conformance figures were measured against is pinned, not a range', () => {
    const wanted = pkg.dependencies['@langchain/langgraph-api'];
    expect(wanted).toMatch(/^\d+\.\d+\.\d+$/);
    expect(lock.packages['node_modules/@langchain/langgraph-api'].version).toBe(wanted);
  });
});
