/**
 * `npm run newcomer`: the first hour of a new user, timed. A fresh clone of this repository into a temporary
 * folder → `npm ci` → `npm start` (its first build included) → the Quick start's requests in English and Korean
 * → `npm run dev` → `/console`. Prints each step's duration; exits 1 at the first step that does not answer as
 * the Quick start says.
 *
 *   npm run newcomer                          # clones the committed HEAD of this checkout
 *   npm run newcomer -- --reuse-node-modules  # links this checkout's node_modules instead of `npm ci` (CI speed)
 *   npm run newcomer -- --repo <git url> --keep --verbose
 *
 * Needs nothing but Node and git: the service runs on its embedded Postgres, without Redis and without a model.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

const REPO = path.resolve(__dirname, '..');
const args = process.argv.slice(2);
const flag = (name: string) => args.includes(`--${name}`);
const option = (name: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);

const source = option('repo') ?? REPO;
const dir = mkdtempSync(path.join(tmpdir(), 'newcomer-'));
const clone = path.join(dir, 'agent-orchestrator');
const timings: Array<[string, number]> = [];
const children: ChildProcess[] = [];

async function step<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
  const started = Date.now();
  process.stdout.write(`→ ${name}\n`);
  const value = await fn();
  const ms = Date.now() - started;
  timings.push([name, ms]);
  process.stdout.write(`  ✓ ${name} (${(ms / 1000).toFixed(1)} s)\n`);
  return value;
}

function check(condition: unknown, what: string, got: unknown): void {
  if (!condition) throw new Error(`${what}; got ${JSON.stringify(got).slice(0, 500)}`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** a command of the clone, in its own process group (stopped with everything it started); its output kept */
function launch(command: string, commandArgs: string[], env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(command, commandArgs, {
    cwd: clone,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-50_000);
    if (flag('verbose')) process.stdout.write(chunk);
    // what the build and the dev runner say they are doing
    else for (const line of chunk.toString().split('\n')) if (/^\[(build|dev)\]/.test(line)) process.stdout.write(`    ${line}\n`);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  children.push(child);
  return { child, output: () => output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid!, 'SIGTERM');
  const killed = setTimeout(() => child.exitCode === null && process.kill(-child.pid!, 'SIGKILL'), 15_000);
  await exited;
  clearTimeout(killed);
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, output?: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: nothing after ${timeoutMs / 1000} s${output ? `\n${output().slice(-3000)}` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function request(url: string, method = 'GET', body?: unknown): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON: the console page */
  }
  return { status: res.status, body: parsed, text };
}

/** the Quick start's requests, answered as it shows them */
async function quickStart(base: string): Promise<void> {
  await step('GET /health/ready', async () => {
    const ready = await request(`${base}/health/ready`);
    check(ready.status === 200 && ready.body.status === 'ok' && ready.body.queue === 'inline', 'ready, inline queue', ready.body);
  });
  await step('POST /v1/chat "(12 + 3) * 4"', async () => {
    const chat = await request(`${base}/v1/chat`, 'POST', { message: '(12 + 3) * 4' });
    check(
      chat.body?.response === '(12 + 3) * 4 = 60' && chat.body.metadata?.model_used === false,
      '"(12 + 3) * 4 = 60", no model',
      chat.body,
    );
  });
  await step('POST /v1/chat "What is (12 + 3) * 4?"', async () => {
    const chat = await request(`${base}/v1/chat`, 'POST', { message: 'What is (12 + 3) * 4?' });
    check(chat.body?.response === '(12 + 3) * 4 is 60.', 'an English sentence', chat.body);
  });
  const job = await step('POST /v1/jobs "지금 몇 시야?" → GET /v1/jobs/<job_id>', async () => {
    const queued = await request(`${base}/v1/jobs`, 'POST', { message: '지금 몇 시야?' });
    check(queued.status === 202 && queued.body.status === 'queued', '202 queued', queued.body);
    const done = await waitFor(
      'the queued run',
      async () => {
        const got = await request(`${base}/v1/jobs/${queued.body.job_id}`);
        return got.body.status === 'completed' || got.body.status === 'failed' ? got.body : undefined;
      },
      30_000,
    );
    check(done.status === 'completed' && /기준 지금은 .*입니다\.$/.test(done.result.response), 'a Korean sentence with the time', done);
    return done as { job_id: string; session_id: string; result: { run_id: string } };
  });
  await step('GET /v1/sessions/<id>, /result, /runs/<run_id>/trace; DELETE', async () => {
    const session = await request(`${base}/v1/sessions/${job.session_id}`);
    check(session.status === 200 && session.body.messages.length === 2, 'the session with two messages', session.body);
    const result = await request(`${base}/v1/sessions/${job.session_id}/result`);
    check(result.body.run_id === job.result.run_id, 'the latest result', result.body);
    const trace = await request(`${base}/v1/sessions/${job.session_id}/runs/${job.result.run_id}/trace`);
    check(trace.status === 200 && trace.body.run_id === job.result.run_id, 'the run trace', trace.body);
    const cancel = await request(`${base}/v1/jobs/${job.job_id}/cancel`, 'POST');
    check(cancel.status < 500, 'a cancel answered', cancel.body);
    const gone = await request(`${base}/v1/sessions/${job.session_id}`, 'DELETE');
    check(gone.status < 300, 'the session deleted', gone.body);
  });
}

async function main(): Promise<void> {
  process.stdout.write(`newcomer: ${source} → ${clone}\n`);
  // this checkout's branch (its committed HEAD), or the remote's default branch
  const branch =
    source === REPO ? ['--branch', execFileSync('git', ['rev-parse', '--abbrev-ref', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim()] : [];
  await step('git clone', () => execFileSync('git', ['clone', '--quiet', ...branch, source, clone], { stdio: 'inherit' }));
  if (flag('reuse-node-modules')) {
    await step('node_modules linked (--reuse-node-modules)', () =>
      symlinkSync(path.join(REPO, 'node_modules'), path.join(clone, 'node_modules')),
    );
  } else {
    await step('npm ci', () => execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: clone, stdio: 'inherit' }));
  }

  const port = await freePort();
  const env = { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: path.join(dir, 'data'), LOG_FORMAT: 'json' };
  const start = launch('npm', ['start'], env);
  const base = `http://127.0.0.1:${port}`;
  await step('npm start (first build included) → listening', () =>
    waitFor('npm start', async () => ((await request(`${base}/health/live`)).status === 200 ? true : undefined), 600_000, start.output),
  );
  await quickStart(base);
  await stop(start.child);

  const devPort = await freePort();
  const dev = launch('npm', ['run', 'dev'], { ...env, PORT: String(devPort) });
  const devBase = `http://127.0.0.1:${devPort}`;
  await step('npm run dev → listening', () =>
    waitFor('npm run dev', async () => ((await request(`${devBase}/health/live`)).status === 200 ? true : undefined), 120_000, dev.output),
  );
  await step('GET /console under npm run dev', async () => {
    const page = await request(`${devBase}/console`);
    check(page.status === 200 && /<script[^>]+app\.js/.test(page.text), 'the console page', page.text);
  });
  await stop(dev.child);
}

void main()
  .then(
    () => 0,
    (err: Error) => {
      process.stderr.write(`\nnewcomer: FAILED: ${err.message}\n`);
      return 1;
    },
  )
  .then(async (code) => {
    for (const child of children) await stop(child).catch(() => undefined);
    process.stdout.write('\nstep durations:\n');
    for (const [name, ms] of timings) process.stdout.write(`  ${(ms / 1000).toFixed(1).padStart(7)} s  ${name}\n`);
    process.stdout.write(`  ${(timings.reduce((t, [, ms]) => t + ms, 0) / 1000).toFixed(1).padStart(7)} s  total\n`);
    if (flag('keep')) process.stdout.write(`kept: ${clone}\n`);
    else rmSync(dir, { recursive: true, force: true });
    process.exit(code);
  });
