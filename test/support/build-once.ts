import { execFileSync } from 'node:child_process';
import path from 'node:path';

const REPO = path.resolve(__dirname, '../..');

/** `npm run build` unless `dist` is newer than its sources (scripts/build-if-stale.ts): the suites that need the build share one. */
export function buildOnce(): void {
  execFileSync(process.execPath, ['-r', './test/support/swc-register.js', 'scripts/build-if-stale.ts'], { cwd: REPO, stdio: 'pipe' });
}
