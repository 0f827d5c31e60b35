/**
 * A/B of the react turn, back to back on a shared machine: `node dist/main.js` of build A and of build B, started
 * in turn (`AB_ROUNDS` rounds, `AB_TURNS` sequential turns each after 50 warm-up turns), Postgres + Redis.
 * Per build: API CPU per turn (from /proc, load-robust), overhead p50, and the SQL statements (round trips) per turn
 * counted by bench/support/count-queries.js (`AB_COUNT=0`: not loaded, e.g. for a profile without it); the
 * statements of one turn are printed with `AB_STATEMENTS=1`. `AB_NODE_ARGS` adds node flags (`--cpu-prof …`),
 * `AB_NODE_ARGS_A` / `AB_NODE_ARGS_B` to one build only.
 * `AB_SESSION=pairs`: every second turn continues the session of the turn before it (a session's second turn reads
 * its checkpoint and its taint record), so the figures are the mean of a first and a second turn.
 *
 * Throughput mode, `AB_CLIENTS=10` (`AB_SECONDS`, 10, per window; `AB_WARMUP`, 10, rounds of that many concurrent
 * turns before it): each build's window runs that many clients turning back to back; per build: turns/s, CPU per turn of the API process and of its main thread (the event loop), the main
 * thread's time on a core / waiting for one (runqueue) / off both (waiting for I/O or timers) from
 * /proc/<pid>/task/<pid>/schedstat, and CPU per turn of this database's Postgres backends, of Redis (INFO cpu, the
 * whole server) and of this process (clients + model server). `AB_FLOOR=1` adds the floor (bench/support/floor-graph
 * with the official PostgresSaver, in-process, no HTTP) to each round, with its CPU and its Postgres backends' CPU;
 * `AB_NODE_ARGS_FLOOR` adds node flags to the floor's process (`--cpu-prof …`); `AB_THREADS=1` prints the API process's CPU per turn by thread name (the main thread, V8's GC helpers, libuv's pool).
 *
 *   AB_A=/path/to/a/dist/main.js AB_B=dist/main.js node -r ./test/support/swc-register.js bench/turn-ab.ts
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import IORedis from 'ioredis';
import { Client } from 'pg';

import { createTestDatabase, TEST_REDIS_URL, uniqueQueuePrefix } from '../test/support/infra';
import { cpuOf, percentile, round } from './lib';
import { StreamingModelServer } from './support/streaming-model-server';
import { startApi, turn, type TurnSample } from './turn.bench';

const ROUNDS = Number(process.env.AB_ROUNDS ?? 3);
const TURNS = Number(process.env.AB_TURNS ?? 100);
const COUNTER = resolve(__dirname, 'support', 'count-queries.js');

interface Round {
  cpuMs: number;
  overheadP50: number;
  statements: number;
  byStatement: Record<string, number>;
}

type Snapshot = { total: number; byStatement: Record<string, number> };

async function snapshot(file: string): Promise<Snapshot> {
  if (process.env.AB_COUNT === '0') return { total: 0, byStatement: {} };
  await new Promise((r) => setTimeout(r, 300)); // the counter writes every 100 ms
  return JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
}

function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

let seq = 0;

/** One react turn, in a new session or continuing `sessionId`; throws unless it was answered. */
async function chatTurn(
  url: string,
  model: StreamingModelServer,
  sessionId?: string,
): Promise<Pick<TurnSample, 'total' | 'model'> & { sessionId?: string }> {
  const served = model.served.length;
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      message: `What is 12 times 7? (turn ${++seq})`,
      agent: 'react',
      ...(sessionId ? { session_id: sessionId } : {}),
    }),
  });
  const body = (await res.json()) as { response?: string; session_id?: string };
  const total = performance.now() - t0;
  // a session's second turn may be answered without the model (the LLM cache): the store path is what is measured
  if (res.status !== 200 || !body.response) throw new Error(`unexpected turn: ${res.status} ${JSON.stringify(body)}`);
  return { total, model: model.served.slice(served).reduce((sum, r) => sum + r.ms, 0), sessionId: body.session_id };
}

/** A turn of the round: a new session, or with AB_SESSION=pairs every second one the session of the turn before. */
async function roundTurn(url: string, model: StreamingModelServer, i: number, last: { sessionId?: string }) {
  if (process.env.AB_SESSION !== 'pairs') return turn(url, model);
  const s = await chatTurn(url, model, i % 2 === 1 ? last.sessionId : undefined);
  last.sessionId = s.sessionId;
  return s;
}

/** `AB_ENV_A` / `AB_ENV_B`: settings for one build only (`"LLM_CACHE=false REDIS_URL="`), to price a setting */
function envOf(label: string): Record<string, string> {
  const pairs = (process.env[`AB_ENV_${label}`] ?? '').split(' ').filter(Boolean);
  return Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
}

/** AB_NODE_ARGS for both builds, then `AB_NODE_ARGS_A` / `AB_NODE_ARGS_B` for one (node flags, to price one) */
function nodeArgsOf(label: string): string {
  return [process.env.AB_NODE_ARGS ?? '', process.env[`AB_NODE_ARGS_${label}`] ?? ''].join(' ').trim();
}

/** the API's settings in a round: Postgres + Redis, the bench's model, then the build's own (AB_ENV_A / AB_ENV_B) */
function apiEnv(dbUrl: string, model: StreamingModelServer, label: string): Record<string, string> {
  return {
    DATABASE_URL: dbUrl,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: uniqueQueuePrefix('turnab'),
    LLM_BASE_URL: model.baseUrl,
    LLM_MODEL: 'bench',
    LLM_MAX_RETRIES: '0',
    ...envOf(label),
  };
}

async function oneRound(main: string, dbUrl: string, model: StreamingModelServer, label: string): Promise<Round> {
  const countFile = join(tmpdir(), `turn-ab-${label}-${process.pid}.json`);
  process.env.BENCH_API_MAIN = main;
  const counting = process.env.AB_COUNT !== '0';
  process.env.BENCH_API_ARGS = [...(counting ? ['-r', COUNTER] : []), nodeArgsOf(label)].join(' ').trim();
  const api = await startApi({ ...apiEnv(dbUrl, model, label), QUERY_COUNT_FILE: countFile });
  try {
    for (let i = 0; i < 50; i++) await turn(api.url, model);
    const before = await snapshot(countFile);
    const cpu0 = cpuSeconds(api.pid);
    const overheads: number[] = [];
    const last: { sessionId?: string } = {};
    for (let i = 0; i < TURNS; i++) {
      const s = await roundTurn(api.url, model, i, last);
      overheads.push(s.total - s.model);
    }
    const cpu = cpuSeconds(api.pid) - cpu0;
    const after = await snapshot(countFile);
    const byStatement: Record<string, number> = {};
    for (const [k, v] of Object.entries(after.byStatement)) {
      const d = v - (before.byStatement[k] ?? 0);
      if (d) byStatement[k] = d / TURNS;
    }
    return {
      cpuMs: (cpu * 1000) / TURNS,
      overheadP50: percentile(overheads, 50),
      statements: (after.total - before.total) / TURNS,
      byStatement,
    };
  } finally {
    await api.stop();
  }
}

interface LoadWindow {
  tps: number;
  /** ms of CPU per turn of the API process (the floor's) over 50 sequential turns before the window: what concurrency saves */
  sequential: number;
  /** ms of CPU per turn */
  api: number;
  loop: number;
  postgres: number;
  redis: number;
  bench: number;
  /** the event loop's thread, % of the window: on a core, waiting for one, off both */
  onCpu: number;
  runqueue: number;
  off: number;
  machine: number;
}

const CLIENTS = Number(process.env.AB_CLIENTS ?? 0);
const SECONDS = Number(process.env.AB_SECONDS ?? 10);
/** rounds of AB_CLIENTS concurrent turns before the window: V8 still compiles the turn's code 25 s after start */
const WARMUP_ROUNDS = Number(process.env.AB_WARMUP ?? 10);

/** [ns on a core, ns waiting in the runqueue] of a thread */
function schedstat(pid: number, tid = pid): [number, number] {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
    return [run, wait];
  } catch {
    return [0, 0];
  }
}

/** CPU seconds of one thread (utime + stime) */
function threadCpu(pid: number, tid = pid): number {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds of each thread of `pid`, by thread name (V8's GC helpers, libuv's pool, the main thread by its pid) */
function threadsByName(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const name =
        Number(tid) === pid ? 'main (event loop)' : `${readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()}#${Number(tid) - pid}`;
      out.set(name, (out.get(name) ?? 0) + threadCpu(pid, Number(tid)));
    } catch {
      // the thread ended
    }
  }
  return out;
}

function machineBusy(): number {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return (cpu.reduce((s, n) => s + n, 0) - cpu[3] - cpu[4]) / 100;
}

/** CPU of this database's backends (a backend gone in the window loses its share), of Redis, of this process */
class SideCpu {
  private pg0 = new Map<number, number>();
  private redis0 = 0;
  private bench0 = process.cpuUsage();
  private machine0 = 0;
  constructor(
    private readonly sampler: Client,
    private readonly redis: IORedis,
    private readonly dbName: string,
  ) {}

  private async pgPids(): Promise<number[]> {
    const r = await this.sampler.query(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [this.dbName]);
    return (r.rows as Array<{ pid: number }>).map((x) => x.pid);
  }

  private async redisCpu(): Promise<number> {
    const info = await this.redis.info('cpu');
    const field = (name: string) => Number(info.match(new RegExp(`^${name}:([\\d.]+)`, 'm'))?.[1] ?? 0);
    return field('used_cpu_sys') + field('used_cpu_user');
  }

  async start(): Promise<void> {
    this.pg0 = new Map((await this.pgPids()).map((p) => [p, cpuOf(p)]));
    this.redis0 = await this.redisCpu();
    this.bench0 = process.cpuUsage();
    this.machine0 = machineBusy();
  }

  /** seconds of CPU since start; backends that appeared in the window count from 0 */
  async stop(): Promise<{ postgres: number; redis: number; bench: number; machine: number }> {
    const pids = await this.pgPids();
    const b = process.cpuUsage(this.bench0);
    return {
      postgres: pids.reduce((s, p) => s + cpuOf(p) - (this.pg0.get(p) ?? 0), 0),
      redis: (await this.redisCpu()) - this.redis0,
      bench: (b.user + b.system) / 1e6,
      machine: machineBusy() - this.machine0,
    };
  }
}

async function loadWindow(main: string, dbUrl: string, side: SideCpu, model: StreamingModelServer, label: string): Promise<LoadWindow> {
  process.env.BENCH_API_MAIN = main;
  process.env.BENCH_API_ARGS = nodeArgsOf(label);
  const api = await startApi(apiEnv(dbUrl, model, label));
  try {
    for (let i = 0; i < 50; i++) await turn(api.url, model);
    const seq0 = cpuOf(api.pid);
    for (let i = 0; i < 50; i++) await turn(api.url, model);
    const sequential = ((cpuOf(api.pid) - seq0) * 1000) / 50;
    // warm the pools and the JIT at the window's concurrency
    for (let i = 0; i < WARMUP_ROUNDS; i++) await Promise.all(Array.from({ length: CLIENTS }, () => turn(api.url, model)));
    await side.start();
    const cpu0 = cpuOf(api.pid);
    const loop0 = threadCpu(api.pid);
    const [run0, wait0] = schedstat(api.pid);
    const threads0 = threadsByName(api.pid);
    let done = 0;
    const t0 = performance.now();
    const end = t0 + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (performance.now() < end) {
          await turn(api.url, model);
          done++;
        }
      }),
    );
    const secs = (performance.now() - t0) / 1000;
    const [run1, wait1] = schedstat(api.pid);
    if (process.env.AB_THREADS) {
      const by = [...threadsByName(api.pid)].map(([n, c]) => `${n} ${round(((c - (threads0.get(n) ?? 0)) * 1000) / Math.max(1, done), 2)}`);
      process.stderr.write(`  ${label} threads, ms CPU per turn: ${by.join(', ')}\n`);
    }
    const loop = threadCpu(api.pid) - loop0;
    const cpu = cpuOf(api.pid) - cpu0;
    const s = await side.stop();
    const perTurn = (sec: number) => (sec * 1000) / done;
    const pct = (ns: number) => (ns / 1e9 / secs) * 100;
    return {
      tps: done / secs,
      sequential,
      api: perTurn(cpu),
      loop: perTurn(loop),
      postgres: perTurn(s.postgres),
      redis: perTurn(s.redis),
      bench: perTurn(s.bench),
      onCpu: pct(run1 - run0),
      runqueue: pct(wait1 - wait0),
      off: 100 - pct(run1 - run0) - pct(wait1 - wait0),
      machine: (s.machine / secs) * 100,
    };
  } finally {
    await api.stop();
  }
}

/** The floor at AB_CLIENTS in its own process (floor-graph.ts, PostgresSaver): its window's turns/s and CPU per turn */
async function floorWindow(dbUrl: string, side: SideCpu, model: StreamingModelServer): Promise<LoadWindow> {
  const child = spawn(
    process.execPath,
    [
      ...(process.env.AB_NODE_ARGS_FLOOR ?? '').split(' ').filter(Boolean),
      '-r',
      resolve(__dirname, '..', 'test', 'support', 'swc-register.js'),
      resolve(__dirname, 'support', 'floor-graph.ts'),
    ],
    {
      env: {
        ...process.env,
        MODEL_URL: model.baseUrl,
        CHECKPOINTER: 'postgres',
        DB_URL: dbUrl,
        TURNS: '50',
        CLIENTS: String(CLIENTS),
        CLIENTS_SECONDS: String(SECONDS),
        // the window's start and end on stdout, so the side CPU is read around the window only
        WINDOW_MARKS: '1',
        // AB_SESSION=pairs: the floor's every second turn continues a thread too
        SESSION: process.env.AB_SESSION ?? '',
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  let out = '';
  let marks = Promise.resolve();
  let run0: [number, number] = [0, 0];
  let t0 = 0;
  let side1: Awaited<ReturnType<SideCpu['stop']>> | undefined;
  let run1: [number, number] = [0, 0];
  let secs = 0;
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    for (;;) {
      const nl = out.indexOf('\n');
      if (nl < 0 || !out.startsWith('mark ')) break;
      const mark = out.slice(5, nl);
      out = out.slice(nl + 1);
      // the floor waits for our line after each mark: its window starts after we read the CPU, ends before it closes
      if (mark === 'start') {
        marks = marks.then(async () => {
          await side.start();
          run0 = schedstat(child.pid!);
          t0 = performance.now();
          child.stdin!.write('\n');
        });
      } else {
        run1 = schedstat(child.pid!);
        secs = (performance.now() - t0) / 1000;
        marks = marks.then(async () => {
          side1 = await side.stop();
          child.stdin!.end('\n');
        });
      }
    }
  });
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  await marks;
  if (code !== 0 || !side1) throw new Error(`floor-graph exited with ${code}`);
  const r = JSON.parse(out) as {
    perSecond: number;
    cpuMsPerTurn: number;
    clientTurns: number;
    clientsCpuMs: number;
    clientsLoopMs: number;
  };
  const perTurn = (sec: number) => (sec * 1000) / r.clientTurns;
  const pct = (ns: number) => (ns / 1e9 / secs) * 100;
  return {
    tps: r.perSecond,
    sequential: r.cpuMsPerTurn,
    api: r.clientsCpuMs / r.clientTurns,
    loop: r.clientsLoopMs / r.clientTurns,
    postgres: perTurn(side1.postgres),
    redis: perTurn(side1.redis),
    bench: perTurn(side1.bench),
    onCpu: pct(run1[0] - run0[0]),
    runqueue: pct(run1[1] - run0[1]),
    off: 100 - pct(run1[0] - run0[0]) - pct(run1[1] - run0[1]),
    machine: (side1.machine / secs) * 100,
  };
}

async function loadMain(builds: Array<[string, string]>, model: StreamingModelServer, db: { url: string; name: string }): Promise<void> {
  const sampler = new Client({ connectionString: db.url });
  await sampler.connect();
  const redis = new IORedis(TEST_REDIS_URL);
  const side = new SideCpu(sampler, redis, db.name);
  // the floor's checkpoint tables in a database of their own (PostgresSaver.setup), its backends counted there
  const floorDb = process.env.AB_FLOOR ? await createTestDatabase('turnabfloor') : undefined;
  const floorSide = floorDb && new SideCpu(sampler, redis, floorDb.name);
  const labels: Array<[string, string]> = process.env.AB_FLOOR ? [...builds, ['floor', 'floor-graph, PostgresSaver']] : builds;
  const results = new Map<string, LoadWindow[]>(labels.map(([l]) => [l, []]));
  const f = (n: number) => round(n, 2);
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (const [label, main] of r % 2 ? [...labels].reverse() : labels) {
        const w =
          label === 'floor' ? await floorWindow(floorDb!.url, floorSide!, model) : await loadWindow(main, db.url, side, model, label);
        results.get(label)!.push(w);
        process.stderr.write(
          `round ${r + 1} ${label}: ${f(w.tps)} turns/s, CPU/turn sequential ${f(w.sequential)}, api ${f(w.api)} (loop ${f(w.loop)}) pg ${f(w.postgres)} redis ${f(w.redis)} bench ${f(w.bench)} ms; loop thread on-cpu ${round(w.onCpu)} % runqueue ${round(w.runqueue)} % off ${round(w.off)} %; machine ${round(w.machine)} %\n`,
        );
      }
    }
  } finally {
    await sampler.end();
    redis.disconnect();
    await floorDb?.drop();
  }
  const med = (rs: LoadWindow[], k: keyof LoadWindow) =>
    percentile(
      rs.map((x) => x[k]),
      50,
    );
  const lines = [
    `| build (${CLIENTS} clients, ${SECONDS} s windows) | turns/s, median (rounds) | API CPU ms/turn, sequential | API CPU ms/turn (event-loop thread) | Postgres ms/turn | Redis ms/turn | clients + model ms/turn | loop thread on-CPU / runqueue / off, % | machine % |`,
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [label, main] of labels) {
    const rs = results.get(label)!;
    lines.push(
      `| ${label} (${main}) | ${f(med(rs, 'tps'))} (${rs.map((x) => round(x.tps)).join(', ')}) | ${f(med(rs, 'sequential'))} | ${f(med(rs, 'api'))} (${f(med(rs, 'loop'))}) | ${f(
        med(rs, 'postgres'),
      )} | ${f(med(rs, 'redis'))} | ${f(med(rs, 'bench'))} | ${round(med(rs, 'onCpu'))} / ${round(med(rs, 'runqueue'))} / ${round(med(rs, 'off'))} | ${round(
        med(rs, 'machine'),
      )} |`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main(): Promise<void> {
  const builds: Array<[string, string]> = [
    ['A', resolve(process.env.AB_A ?? 'dist/main.js')],
    ['B', resolve(process.env.AB_B ?? 'dist/main.js')],
  ];
  const model = new StreamingModelServer();
  await model.start();
  model.behaviour = { ttftMs: 0, tokensPerSecond: 0, answerTokens: 20 };
  const db = await createTestDatabase('turnab');
  if (CLIENTS > 0) {
    try {
      return await loadMain(builds, model, db);
    } finally {
      await model.stop();
      await db.drop();
    }
  }
  const results = new Map<string, Round[]>(builds.map(([l]) => [l, []]));
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (const [label, main] of r % 2 ? [...builds].reverse() : builds) {
        const res = await oneRound(main, db.url, model, label);
        results.get(label)!.push(res);
        process.stderr.write(
          `round ${r + 1} ${label}: ${round(res.cpuMs, 2)} ms CPU/turn, overhead p50 ${round(res.overheadP50, 2)} ms, ${res.statements} statements/turn\n`,
        );
      }
    }
  } finally {
    await model.stop();
    await db.drop();
  }
  const lines = ['| build | CPU per turn, median (rounds) | overhead p50, median | SQL statements per turn |', '|---|---|---|---|'];
  for (const [label, main] of builds) {
    const rs = results.get(label)!;
    const cpus = rs.map((x) => x.cpuMs);
    lines.push(
      `| ${label} (${main}) | ${round(percentile(cpus, 50), 2)} ms (${cpus.map((c) => round(c, 1)).join(', ')}) | ${round(
        percentile(
          rs.map((x) => x.overheadP50),
          50,
        ),
        2,
      )} ms | ${rs[0].statements} |`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  if (process.env.AB_STATEMENTS) {
    for (const [label] of builds) {
      process.stdout.write(`\nStatements of one turn, build ${label}:\n\n| per turn | statement |\n|---|---|\n`);
      const by = results.get(label)![0].byStatement;
      for (const [k, v] of Object.entries(by).sort((a, b) => b[1] - a[1]))
        process.stdout.write(`| ${round(v, 2)} | \`${k.replace(/\|/g, '\\|')}\` |\n`);
    }
  }
}

void main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${String(err?.stack ?? err)}\n`);
    process.exit(1);
  },
);
