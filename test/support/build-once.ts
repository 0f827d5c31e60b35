import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, rmdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const REPO = path.resolve(__dirname, '../..');
/** one lock per checkout: test files running in parallel workers build it once, the others wait */
const LOCK = path.join(tmpdir(), `agents-build-${createHash('sha1').update(REPO).digest('hex').slice(0, 12)}.lock`);
const STALE_LOCK_MS = 10 * 60_000;

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** takes the lock (a directory: mkdir is atomic), waiting while another worker holds it; a lock older than a build could take is broken */
function lock(): void {
  for (;;) {
    try {
      mkdirSync(LOCK);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS) rmdirSync(LOCK);
      } catch {
        /* released meanwhile */
      }
      sleep(250);
    }
  }
}

/**
 * `npm run build` unless `dist` is newer than its sources (scripts/build-if-stale.ts): the suites that need the
 * build share one, also from parallel jest workers (the second waits for the first, then finds `dist` fresh).
 */
export function buildOnce(): void {
  lock();
  try {
    execFileSync(process.execPath, ['-r', './test/support/swc-register.js', 'scripts/build-if-stale.ts'], { cwd: REPO, stdio: 'pipe' });
  } finally {
    rmdirSync(LOCK);
  }
}
