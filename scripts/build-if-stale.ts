/**
 * `npm start`'s first step: build only when `dist` is older than what it is built from (sources, console,
 * package and compiler settings), so a second start takes seconds instead of a rebuild. While it builds it says
 * so: each step of the `build` script as it starts, a line every HEARTBEAT_MS while one runs, and the durations.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const REPO = path.resolve(__dirname, '..');
/** `nest build` empties dist first (deleteOutDir), so the entry's time is the build's */
const BUILT = path.join(REPO, 'dist', 'main.js');
const INPUTS = ['src', 'console', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json'];
const HEARTBEAT_MS = Number(process.env.BUILD_HEARTBEAT_MS ?? 10_000);

/** the newest modification time under `p` (files only; node_modules and build output skipped) */
function newest(p: string): number {
  if (!existsSync(p)) return 0;
  const s = statSync(p);
  if (!s.isDirectory()) return s.mtimeMs;
  return readdirSync(p)
    .filter((e) => e !== 'node_modules' && e !== 'dist')
    .reduce((m, e) => Math.max(m, newest(path.join(p, e))), 0);
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/** one step of the build script, as npm runs it (the package's binaries on PATH), with a line while it runs */
function run(step: string, label: string): Promise<void> {
  const started = Date.now();
  console.log(`[build] ${label} ${step}`);
  const env = { ...process.env, PATH: `${path.join(REPO, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH ?? ''}` };
  const child = spawn(step, { cwd: REPO, env, shell: true, stdio: 'inherit' });
  const heartbeat = setInterval(() => console.log(`[build] ${label} still running (${seconds(Date.now() - started)})…`), HEARTBEAT_MS);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearInterval(heartbeat);
      if (code === 0) return resolve(console.log(`[build] ${label} done in ${seconds(Date.now() - started)}`));
      reject(new Error(`\`${step}\` failed (${signal ?? `exit code ${code}`})`));
    });
  });
}

async function main(): Promise<void> {
  const built = existsSync(BUILT) ? statSync(BUILT).mtimeMs : 0;
  const changed = Math.max(...INPUTS.map((i) => newest(path.join(REPO, i))));
  if (changed <= built) {
    console.log('dist is up to date: starting without a build (`npm run build` forces one)');
    return;
  }
  const script = (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { scripts: { build: string } }).scripts.build;
  const steps = script.split('&&').map((s) => s.trim());
  console.log(
    `[build] ${built ? 'sources changed since the last build' : 'no build yet'}: building dist in ${steps.length} steps ` +
      '(a first build takes one to two minutes; later starts reuse it)',
  );
  const started = Date.now();
  for (const [i, step] of steps.entries()) await run(step, `${i + 1}/${steps.length}`);
  console.log(`[build] built in ${seconds(Date.now() - started)}: starting`);
}

main().catch((err: Error) => {
  console.error(`[build] ${err.message}`);
  process.exit(1);
});
