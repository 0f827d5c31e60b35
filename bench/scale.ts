/**
 * `npm run bench:scale` (not in CI): queued runs/s as worker processes, then API processes, are added.
 *
 * Each step starts the shipped commands on a database and a queue prefix of its own (real Postgres and Redis):
 * `node dist/main.js` with `RUN_WORKER=false` and `WEB_CONCURRENCY` API processes, and N × `node dist/worker.js`
 * with `WORKER_CONCURRENCY` (C) each. The model (`support/streaming-model-process.ts`, a process of its own)
 * takes SCALE_MODEL_MS (500) per call; a streamed reply's first chunk comes at 300 ms, the others over the rest.
 * Workload: the default `react` agent, one calculator call per run → 2 model calls (checked from each run's
 * trace), so a slot finishes at most one run per second and the steps' ceiling is N × C runs/s.
 *
 * Load: closed loop, as SCALE_BACKLOG × N × C (1.5×) users who each submit a run with `POST /v1/jobs` (API key)
 * and submit the next once theirs ended: the queue always holds work, so the step shows what the service can
 * take. The bench sees runs end by polling Postgres every 100 ms (one query, not one HTTP request per run).
 * After a warm-up (SCALE_WARMUP_S or more: until every slot has finished a run) the window of SCALE_WINDOW_S
 * starts: runs/s = runs that finished in the window / its length; latency = created → finished (queue to done) and started → finished (execution), from the rows.
 * CPU over the window from /proc/<pid>/stat: the API processes (the cluster's primary and its children), the
 * workers, this step's Postgres backends (pg_stat_activity of its database), Redis (INFO cpu — the whole
 * server), the model process, the bench, and the machine (/proc/stat), whose remainder is other work.
 *
 * SCALE_QUICK=1: 5 s warm-up, 15 s windows (proves it works; the figures want the full run on a quiet machine).
 * SCALE_STEPS=1x1,2x1,4x1,4x2 (workers x API processes), SCALE_CONCURRENCY=25. Prints a markdown table and
 * writes it to bench/results/scale.md.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';

import IORedis from 'ioredis';
import { Client } from 'pg';

import { createTestDatabase, TEST_REDIS_URL, uniqueQueuePrefix } from '../test/support/infra';
import { freePort } from '../test/support/main-process';
import { childrenOf, cpuOf, round, table } from './lib';

const REPO = join(__dirname, '..');
const QUICK = process.env.SCALE_QUICK === '1';
const MODEL_MS = Number(process.env.SCALE_MODEL_MS ?? 500);
const CONCURRENCY = Number(process.env.SCALE_CONCURRENCY ?? 25);
const BACKLOG = Number(process.env.SCALE_BACKLOG ?? 1.5);
const WARMUP_S = Number(process.env.SCALE_WARMUP_S ?? (QUICK ? 5 : 15));
const WARMUP_MAX_S = Number(process.env.SCALE_WARMUP_MAX_S ?? 120);
const WINDOW_S = Number(process.env.SCALE_WINDOW_S ?? (QUICK ? 15 : 60));
const STEPS = (process.env.SCALE_STEPS ?? '1x1,2x1,4x1,4x2').split(',').map((s) => {
  const [workers, api] = s.split('x').map(Number);
  return { workers, api };
});
const CALLS_PER_RUN = 2;
const CORES = availableParallelism();
const TICK_MS = 100;
const LOGS = mkdtempSync(join(tmpdir(), 'bench-scale-'));

interface Step {
  /** seconds: start-up of the processes, warm-up */
  bootS: number;
  warmUpS: number;
  workers: number;
  api: number;
  ceiling: number;
  rate: number;
  completed: number;
  notCompleted: number;
  /** runs started more than once (a lock lost under load, then taken over) */
  retried: number;
  modelCallsPerRun: number;
  p50: number;
  p95: number;
  execP50: number;
  /** % of one core over the window */
  cpu: { api: number; workers: number; workerMax: number; postgres: number; redis: number; model: number; bench: number; machine: number };
  pgActive: number;
  pgConnections: number;
  modelCalls: { streamed: number; calls: number; p50Ms: number };
  submitErrors: number;
  lastSubmitError: string;
}

/** A shipped command as a process of its own, its output in a log file (the bench reads none of it while it runs). */
class Proc {
  readonly child: ChildProcess;
  readonly log: string;

  constructor(name: string, args: string[], env: Record<string, string>) {
    this.log = join(LOGS, `${name}-${randomBytes(3).toString('hex')}.log`);
    const out = openSync(this.log, 'a');
    this.child = spawn(process.execPath, args, {
      cwd: REPO,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', out, out],
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Waits until the log holds `text` `times` times. */
  async ready(text: string, times = 1, timeoutMs = 90_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (readFileSync(this.log, 'utf8').split(text).length - 1 < times) {
      if (this.child.exitCode !== null) throw new Error(`${this.log}: exited with ${this.child.exitCode}`);
      if (Date.now() > deadline) throw new Error(`${this.log}: not ready in ${timeoutMs} ms`);
      await sleep(200);
    }
  }

  /** SIGTERM (a graceful stop), SIGKILL after 20 s; or SIGKILL at once. */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }
}

/** The streaming model in its own process: its URL, and at stop (once) the calls it served. */
async function startModel(): Promise<{ url: string; pid: number; stop: () => Promise<Step['modelCalls']> }> {
  const child = spawn(process.execPath, ['-r', './test/support/swc-register.js', 'bench/support/streaming-model-process.ts'], {
    cwd: REPO,
    env: { ...process.env, CALL_MS: String(MODEL_MS), TTFT_MS: String(Math.round(MODEL_MS * 0.6)) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  child.stdout!.on('data', (d: Buffer) => lines.push(...d.toString().trim().split('\n')));
  const exited = new Promise((r) => child.once('exit', r));
  while (lines.length === 0) {
    if (child.exitCode !== null) throw new Error(`model process exited with ${child.exitCode}`);
    await sleep(50);
  }
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    return lines.length > 1 ? (JSON.parse(lines[lines.length - 1]) as Step['modelCalls']) : { calls: 0, streamed: 0, p50Ms: 0 };
  };
  return { url: lines[0], pid: child.pid!, stop };
}

/**
 * Closed-loop load: keeps `users` runs submitted and not ended. Every TICK_MS one query finds the runs that
 * ended, and as many new runs are POSTed (each with a message of its own).
 */
class Load {
  readonly inFlight = new Set<string>();
  errors = 0;
  lastError = '';
  /** set when the load could not go on (checked by the step) */
  failure?: Error;
  private seq = 0;
  private stopped = false;
  private loop?: Promise<void>;

  constructor(
    private readonly url: string,
    private readonly apiKey: string,
    private readonly pg: Client,
    private readonly users: number,
  ) {}

  start(): void {
    this.loop = this.run().catch((err: Error) => void (this.failure = err));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const tick = Date.now();
      if (this.inFlight.size > 0) {
        const { rows } = await this.pg.query(`SELECT id FROM runs WHERE id = ANY($1) AND status IN ('completed', 'failed', 'cancelled')`, [
          [...this.inFlight],
        ]);
        for (const r of rows as Array<{ id: string }>) this.inFlight.delete(r.id);
      }
      await Promise.all(Array.from({ length: this.users - this.inFlight.size }, () => this.submit()));
      if (this.errors > 100) throw new Error(`POST /v1/jobs failed ${this.errors} times; last: ${this.lastError}`);
      await sleep(TICK_MS - (Date.now() - tick));
    }
  }

  private async submit(): Promise<void> {
    const res = await fetch(`${this.url}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': this.apiKey },
      body: JSON.stringify({ message: `What is 12 times 7? (run ${++this.seq})` }),
    }).catch((err: Error) => err);
    if (res instanceof Error || res.status !== 202) {
      this.errors++;
      this.lastError = res instanceof Error ? res.message : `${res.status} ${await res.text()}`;
      return;
    }
    this.inFlight.add(((await res.json()) as { job_id: string }).job_id);
  }
}

/** CPU seconds so far: each process, this database's Postgres backends, Redis, the machine (busy and all). */
interface Snapshot {
  at: number;
  pids: Map<number, number>;
  pg: Map<number, number>;
  redis: number;
  bench: number;
  machine: { busy: number; total: number };
}

async function snapshot(pids: number[], sampler: Client, db: string, redis: IORedis): Promise<Snapshot> {
  const { rows } = await sampler.query(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [db]);
  const info = await redis.info('cpu');
  const field = (name: string) => Number(info.match(new RegExp(`^${name}:([\\d.]+)`, 'm'))?.[1] ?? 0);
  const usage = process.cpuUsage();
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return {
    at: Date.now(),
    pids: new Map(pids.map((p) => [p, cpuOf(p)])),
    pg: new Map((rows as Array<{ pid: number }>).map((r) => [r.pid, cpuOf(r.pid)])),
    redis: field('used_cpu_sys') + field('used_cpu_user'),
    bench: (usage.user + usage.system) / 1e6,
    machine: { busy: cpu.reduce((s, n) => s + n, 0) - cpu[3] - cpu[4], total: cpu.reduce((s, n) => s + n, 0) },
  };
}

async function step(workers: number, apiProcesses: number): Promise<Step> {
  const db = await createTestDatabase('scale');
  const prefix = uniqueQueuePrefix('scale');
  const apiKey = randomBytes(16).toString('hex');
  const model = await startModel();
  const env = {
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    LLM_BASE_URL: model.url,
    LLM_MODEL: 'bench',
    LLM_MAX_RETRIES: '0',
    LLM_CACHE: 'false',
    API_KEYS: `bench:${apiKey}`,
    RATE_LIMIT_PER_MINUTE: '0',
    WORKER_CONCURRENCY: String(CONCURRENCY),
  };
  const port = await freePort();
  const api = new Proc('api', ['dist/main.js'], {
    ...env,
    PORT: String(port),
    HOST: '127.0.0.1',
    RUN_WORKER: 'false',
    WEB_CONCURRENCY: String(apiProcesses),
  });
  const procs: Proc[] = [api];
  const pg = new Client({ connectionString: db.url });
  const sampler = new Client({ connectionString: db.url });
  const redis = new IORedis(TEST_REDIS_URL);
  let load: Load | undefined;
  /** stops the load, then the workers, the API and the model (in that order; once) */
  let stopped: Promise<Step['modelCalls']> | undefined;
  const stopAll = () =>
    (stopped ??= (async () => {
      await load?.stop();
      // the window is over and its runs are in Postgres: no need to wait for the workers' grace period
      for (const p of procs.slice(1)) await p.stop('SIGKILL');
      await api.stop();
      return model.stop();
    })());
  const started = Date.now();
  try {
    await api.ready('listening on', apiProcesses);
    const workerProcs = Array.from({ length: workers }, () => new Proc('worker', ['dist/worker.js'], env));
    procs.push(...workerProcs);
    for (const w of workerProcs) await w.ready('consuming runs');
    await pg.connect();
    await sampler.connect();
    const apiPids = [api.pid, ...childrenOf(api.pid)];
    const workerPids = workerProcs.map((w) => w.pid);
    const allPids = [...apiPids, ...workerPids, model.pid];

    const bootS = round((Date.now() - started) / 1000);
    const slots = workers * CONCURRENCY;
    load = new Load(`http://127.0.0.1:${port}`, apiKey, pg, Math.ceil(slots * BACKLOG));
    load.start();
    const warmUp = await warmedUp(pg, slots, load);
    const s0 = await snapshot(allPids, sampler, db.name, redis);
    const active: Array<{ active: number; all: number }> = [];
    while (Date.now() < s0.at + WINDOW_S * 1000) {
      if (load.failure) throw load.failure;
      await sleep(Math.min(500, s0.at + WINDOW_S * 1000 - Date.now()));
      const { rows } = await sampler.query(
        `SELECT count(*) FILTER (WHERE state = 'active')::int AS active, count(*)::int AS all FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
        [db.name],
      );
      active.push(rows[0] as { active: number; all: number });
    }
    const s1 = await snapshot(allPids, sampler, db.name, redis);
    const modelCalls = await stopAll();

    const { rows } = await pg.query(
      `SELECT count(*) FILTER (WHERE status = 'completed')::int AS completed, count(*) FILTER (WHERE status <> 'completed')::int AS other,
              count(*) FILTER (WHERE attempts > 1)::int AS retried,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - created_at)) * 1000 AS p50,
              percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - created_at)) * 1000 AS p95,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at)) * 1000 AS exec,
              avg(jsonb_array_length(trace->'model_calls')) AS calls
         FROM runs WHERE finished_at >= to_timestamp($1 / 1000.0) AND finished_at < to_timestamp($2 / 1000.0)`,
      [s0.at, s1.at],
    );
    const r = rows[0] as { completed: number; other: number; retried: number; p50: number; p95: number; exec: number; calls: string };
    const seconds = (s1.at - s0.at) / 1000;
    const pct = (cpuS: number) => round((cpuS / seconds) * 100);
    const delta = (pids: number[]) => pids.reduce((s, p) => s + (s1.pids.get(p)! - s0.pids.get(p)!), 0);
    const pgCpu = [...s1.pg].reduce((s, [pid, cpu]) => s + cpu - (s0.pg.get(pid) ?? 0), 0);
    const machineShare = (s1.machine.busy - s0.machine.busy) / (s1.machine.total - s0.machine.total);
    return {
      bootS,
      warmUpS: warmUp,
      workers,
      api: apiProcesses,
      ceiling: slots / ((CALLS_PER_RUN * MODEL_MS) / 1000),
      rate: r.completed / seconds,
      completed: r.completed,
      notCompleted: r.other,
      retried: r.retried,
      modelCallsPerRun: Number(r.calls),
      p50: Number(r.p50),
      p95: Number(r.p95),
      execP50: Number(r.exec),
      cpu: {
        api: pct(delta(apiPids)),
        workers: pct(delta(workerPids)),
        workerMax: Math.max(...workerPids.map((p) => pct(delta([p])))),
        postgres: pct(pgCpu),
        redis: pct(s1.redis - s0.redis),
        model: pct(delta([model.pid])),
        bench: pct(s1.bench - s0.bench),
        machine: round(machineShare * CORES * 100),
      },
      pgActive: round(active.reduce((s, a) => s + a.active, 0) / active.length),
      pgConnections: Math.max(...active.map((a) => a.all)),
      modelCalls,
      submitErrors: load.errors,
      lastSubmitError: load.lastError,
    };
  } catch (err) {
    console.error(`logs: ${procs.map((p) => p.log).join(' ')}`);
    throw err;
  } finally {
    await stopAll().catch(() => undefined);
    await pg.end().catch(() => undefined);
    await sampler.end().catch(() => undefined);
    // every key of this step's prefix (the runs queue, the crons queue's meta): the processes are gone
    for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 1000 }) as AsyncIterable<string[]>) {
      if (keys.length > 0) await redis.del(...keys);
    }
    redis.disconnect();
    await db.drop();
  }
}

/**
 * Warm-up: at least WARMUP_S, and until every slot has finished a run (slots runs completed). A cold start's
 * first wave of runs shares the CPU and ends together, late; a window that includes it is not steady.
 * Gives up waiting after WARMUP_MAX_S. Returns the seconds it took.
 */
async function warmedUp(pg: Client, slots: number, load: Load): Promise<number> {
  const started = Date.now();
  for (;;) {
    await sleep(500);
    if (load.failure) throw load.failure;
    const elapsed = (Date.now() - started) / 1000;
    if (elapsed < WARMUP_S) continue;
    const { rows } = await pg.query(`SELECT count(*)::int AS n FROM runs WHERE status = 'completed'`);
    if ((rows[0] as { n: number }).n >= slots || elapsed >= WARMUP_MAX_S) return round(elapsed);
  }
}

/** What held the step back, from its rate against the ceiling and the CPU figures. */
function bottleneck(s: Step): string {
  const shares: Array<[string, number]> = [
    ['workers', s.cpu.workers],
    ['API', s.cpu.api],
    ['Postgres', s.cpu.postgres],
    ['Redis', s.cpu.redis],
    ['model', s.cpu.model],
    [
      'other work',
      Math.max(0, round(s.cpu.machine - s.cpu.workers - s.cpu.api - s.cpu.postgres - s.cpu.redis - s.cpu.model - s.cpu.bench)),
    ],
  ];
  const [top, topPct] = shares.sort((a, b) => b[1] - a[1])[0];
  if (s.rate >= 0.9 * s.ceiling) return `slots (${s.workers} × ${CONCURRENCY} runs at a time, ~1 s of model each)`;
  if (s.cpu.machine >= 0.9 * CORES * 100) return `CPU: machine ${s.cpu.machine} % of ${CORES * 100} % (most: ${top} ${topPct} %)`;
  if (s.cpu.workerMax >= 90) return `a worker's event loop (${s.cpu.workerMax} % of a core)`;
  if (s.cpu.api >= 90 * s.api) return `the API's event loop (${s.cpu.api} % over ${s.api})`;
  if (s.cpu.redis >= 90) return `Redis (one thread, ${s.cpu.redis} %)`;
  return `none clear (machine ${s.cpu.machine} %, most: ${top} ${topPct} %)`;
}

function report(steps: Step[]): string {
  const ms = (n: number) => (n >= 10_000 ? `${round(n / 1000)} s` : `${Math.round(n)} ms`);
  const first = steps[0];
  const rows = steps.map((s, i) => {
    const prev = steps[i - 1];
    let vsPrev = '—';
    if (prev) {
      const factor = s.workers !== prev.workers ? s.workers / prev.workers : s.api / prev.api;
      const speedup = s.rate / prev.rate;
      vsPrev = `${round(speedup, 2)}× for ${round(factor, 2)}× (${Math.round((speedup / factor) * 100)} %)`;
    }
    const linear = first.rate * (s.workers / first.workers);
    const c = s.cpu;
    return [
      `${s.workers} worker${s.workers > 1 ? 's' : ''} × ${CONCURRENCY}, ${s.api} API`,
      `${round(s.ceiling)}`,
      `**${round(s.rate, 1)}**`,
      vsPrev,
      `${Math.round((s.rate / linear) * 100)} %`,
      `${ms(s.p50)} / ${ms(s.p95)} (${ms(s.execP50)})`,
      `${c.api} / ${c.workers} (max ${c.workerMax}) / ${c.postgres} / ${c.redis}`,
      `${c.model} / ${c.bench} / ${c.machine}`,
      `${round(serviceCpuMs(s), 1)}`,
      bottleneck(s),
    ];
  });
  const head = [
    'config (workers × WORKER_CONCURRENCY, WEB_CONCURRENCY)',
    'ceiling runs/s',
    'runs/s',
    'vs previous step (efficiency)',
    'vs linear in workers',
    'queue→done p50 / p95 (run p50)',
    'CPU % API / workers (max one) / Postgres / Redis',
    'CPU % model / bench / machine',
    'service CPU ms per run',
    'bottleneck',
  ];
  const best = steps.reduce((a, b) => (b.rate > a.rate ? b : a));
  const perRun = serviceCpuMs(best);
  const redisMs = (best.cpu.redis * 10) / best.rate;
  const apiMs = (best.cpu.api * 10) / best.rate;
  const workerMs = (best.cpu.workers * 10) / best.rate;
  const errors = steps.filter((s) => s.lastSubmitError).map((s) => s.lastSubmitError.slice(0, 200));
  const notes = [
    `Model ${MODEL_MS} ms per call (streamed when asked to; the service asks without \`stream\` when no one follows the run's tokens); ${round(avg(steps.map((s) => s.modelCallsPerRun)), 2)} model calls per run (react, one calculator call); ` +
      `ceiling = workers × ${CONCURRENCY} / (${CALLS_PER_RUN} × ${MODEL_MS / 1000} s). Window ${WINDOW_S} s after a warm-up of at least ${WARMUP_S} s ` +
      `and until every slot had finished a run (${steps.map((s) => s.warmUpS).join(' / ')} s; start-up ${steps.map((s) => s.bootS).join(' / ')} s); ` +
      `${BACKLOG}× the slots in flight (closed loop of POST /v1/jobs). ${CORES} cores. CPU in % of one core.`,
    `Runs in the windows: ${steps.map((s) => s.completed).join(' / ')} completed, ${steps.map((s) => s.notCompleted).join(' / ')} not; ` +
      `started more than once (lock lost under load) ${steps.map((s) => s.retried).join(' / ')}; ` +
      `POST errors ${steps.map((s) => s.submitErrors).join(' / ')}${errors.length ? ` (last: ${errors[errors.length - 1]})` : ''}; model calls streamed ${steps.map((s) => `${s.modelCalls.streamed}/${s.modelCalls.calls}`).join(', ')} ` +
      `(p50 ${steps.map((s) => Math.round(s.modelCalls.p50Ms)).join(' / ')} ms inside the model); Postgres backends active on average ` +
      `${steps.map((s) => s.pgActive).join(' / ')} of ${steps.map((s) => s.pgConnections).join(' / ')} connections.`,
    `Per extra core (service CPU = API + workers + this database's Postgres backends + Redis, at the best step, ${round(best.rate, 1)} runs/s): ` +
      `${round(perRun, 1)} ms per run → ~${Math.round(1000 / perRun)} runs/s per core, assuming the work spreads over cores as it does over processes ` +
      `(enough worker slots: runs/s × ${(CALLS_PER_RUN * MODEL_MS) / 1000} s) and that the model, the clients and other work are elsewhere. ` +
      `Of it, API ${round(apiMs, 1)} ms and workers ${round(workerMs, 1)} ms: one process is one event loop, so one API process carries at most ` +
      `~${Math.round(1000 / apiMs)} runs/s and one worker ~${Math.round(1000 / workerMs)} (and needs that many slots at 1 s of model per run). ` +
      `Redis is one thread: at ${round(redisMs, 2)} ms per run (INFO cpu, the whole server: other clients' work included) it tops out ` +
      `near ${Math.round(1000 / redisMs)} runs/s whatever the cores.`,
  ];
  return `${table(rows, head)}\n\n${notes.join('\n\n')}\n`;
}

const serviceCpuMs = (s: Step) => ((s.cpu.api + s.cpu.workers + s.cpu.postgres + s.cpu.redis) * 10) / s.rate;
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

async function main(): Promise<void> {
  const steps: Step[] = [];
  for (const { workers, api } of STEPS) {
    const started = Date.now();
    const s = await step(workers, api);
    steps.push(s);
    console.error(
      `${workers} workers × ${CONCURRENCY}, ${api} API: ${round(s.rate, 1)} runs/s (ceiling ${s.ceiling}), p50 ${Math.round(s.p50)} ms, ` +
        `machine ${s.cpu.machine} %, ${Math.round((Date.now() - started) / 1000)} s`,
    );
  }
  const text = `## Queued runs/s by processes (${new Date().toISOString().slice(0, 16)} UTC${QUICK ? ', SCALE_QUICK' : ''})\n\n${report(steps)}`;
  console.log(`\n${text}`);
  mkdirSync(join(REPO, 'bench', 'results'), { recursive: true });
  writeFileSync(join(REPO, 'bench', 'results', 'scale.md'), text);
  rmSync(LOGS, { recursive: true, force: true }); // the processes' logs are kept only when a step fails
}

main().catch((err: Error) => {
  console.error(err);
  process.exit(1);
});
