/**
 * `npm start`'s first step: build only when `dist` is older than what it is built from (sources, console,
 * package and compiler settings), so a second start takes seconds instead of a rebuild.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const REPO = path.resolve(__dirname, '..');
/** `nest build` empties dist first (deleteOutDir), so the entry's time is the build's */
const BUILT = path.join(REPO, 'dist', 'main.js');
const INPUTS = ['src', 'console', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json'];

/** the newest modification time under `p` (files only; node_modules and build output skipped) */
function newest(p: string): number {
  if (!existsSync(p)) return 0;
  const s = statSync(p);
  if (!s.isDirectory()) return s.mtimeMs;
  return readdirSync(p)
    .filter((e) => e !== 'node_modules' && e !== 'dist')
    .reduce((m, e) => Math.max(m, newest(path.join(p, e))), 0);
}

const built = existsSync(BUILT) ? statSync(BUILT).mtimeMs : 0;
const changed = Math.max(...INPUTS.map((i) => newest(path.join(REPO, i))));
if (changed > built) {
  execFileSync('npm', ['run', '-s', 'build'], { cwd: REPO, stdio: 'inherit' });
} else {
  console.log('dist is up to date: starting without a build (`npm run build` forces one)');
}
