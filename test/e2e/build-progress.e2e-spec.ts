import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const REPO = path.resolve(__dirname, '../..');

/**
 * `npm start`'s build step (scripts/build-if-stale.ts) says what it does while it builds: the steps of the
 * `build` script, a line while a slow one runs, the durations; and nothing to build when dist is current.
 * Run in a scratch package whose build script stands in for the real one (two steps, the second slow).
 */
describe('npm start: the build step says what it is doing', () => {
  let dir: string;
  const run = () =>
    execFileSync(process.execPath, ['-r', path.join(REPO, 'test/support/swc-register.js'), 'scripts/build-if-stale.ts'], {
      cwd: dir,
      env: { ...process.env, BUILD_HEARTBEAT_MS: '200' },
      encoding: 'utf8',
    });

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'build-progress-'));
    mkdirSync(path.join(dir, 'scripts'));
    mkdirSync(path.join(dir, 'src'));
    copyFileSync(path.join(REPO, 'scripts/build-if-stale.ts'), path.join(dir, 'scripts/build-if-stale.ts'));
    writeFileSync(path.join(dir, 'src/main.ts'), 'export {};\n');
    const build = [
      `node -e "require('fs').mkdirSync('dist', { recursive: true })"`,
      `node -e "setTimeout(() => require('fs').writeFileSync('dist/main.js', ''), 900)"`,
    ].join(' && ');
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'scratch', scripts: { build } }));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints each step, a line while one runs, and the time it took; then nothing to build', () => {
    const out = run();
    expect(out).toMatch(/^\[build\] no build yet: building dist in 2 steps \(a first build takes one to two minutes/);
    expect(out).toMatch(/\[build\] 1\/2 node -e .*mkdirSync/);
    expect(out).toMatch(/\[build\] 2\/2 node -e .*setTimeout/);
    expect(out).toMatch(/\[build\] 2\/2 still running \(\d+ s\)…/);
    expect(out).toMatch(/\[build\] 2\/2 done in \d+ s/);
    expect(out).toMatch(/\[build\] built in \d+ s: starting\n$/);
    expect(run()).toMatch(/^dist is up to date: starting without a build/);
    // a source newer than the build: built again, and said why
    const future = new Date(Date.now() + 60_000);
    utimesSync(path.join(dir, 'src/main.ts'), future, future);
    expect(run()).toMatch(/^\[build\] sources changed since the last build: building dist in 2 steps/);
  });

  it('says which step failed', () => {
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'scratch', scripts: { build: 'node -e "process.exit(3)"' } }));
    rmSync(path.join(dir, 'dist'), { recursive: true, force: true });
    expect(() => run()).toThrow(/\[build\] `node -e "process.exit\(3\)"` failed \(exit code 3\)/);
  });
});
