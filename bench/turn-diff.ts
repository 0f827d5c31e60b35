/**
 * Where a sequential react turn's CPU differs between the service and the agent's own graph on the bare libraries:
 * `node dist/main.js` (`POST /v1/chat`) and `bench/support/floor-graph.ts` with `GRAPH=agent PATCHES=1` (the
 * service's react graph and library patches, invoked in-process on the official `PostgresSaver`), one after the
 * other, each profiled with `--cpu-prof` over the same kind of window: DIFF_SECONDS (15) of turns one at a time,
 * after 300 warm-up turns. Each profile is cut to its window by the monotonic clock both processes share, and its
 * samples are divided by the window's turns: the event loop's sampled CPU per turn, by module and by frame, side by
 * side, largest difference first. With `DIFF_STRACE=1` (and `strace` installed) the window's system calls are
 * counted too, per turn (the profiles are then taken in a second window).
 *
 *   npm run build && node -r ./test/support/swc-register.js bench/turn-diff.ts
 *
 * DIFF_MAIN: another build's main.js (default `dist/main.js` under the working directory).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { createTestDatabase, TEST_REDIS_URL, uniqueQueuePrefix } from '../test/support/infra';
import { round } from './lib';
import { type CpuProfile, selfTimes } from './profile-summary';
import { StreamingModelServer } from './support/streaming-model-server';
import { startApi, turn } from './turn.bench';

const SECONDS = Number(process.env.DIFF_SECONDS ?? 15);
const WARMUP = 300;
const TOP = Number(process.env.DIFF_TOP ?? 25);

/** µs of the monotonic clock: the clock of `--cpu-prof` timestamps */
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

interface Window {
  turns: number;
  fromUs: number;
  toUs: number;
}

interface Side {
  label: string;
  /** µs of sampled CPU per turn, by module and by frame; the window's total */
  byModule: Map<string, number>;
  byFrame: Map<string, number>;
  totalUs: number;
  /** system calls per turn (DIFF_STRACE=1) */
  syscalls?: Map<string, number>;
}

/**
 * `strace -c` on every thread of `pid`, once strace says it is attached to them, until `stop()`; `stop` resolves to
 * the calls by name
 */
async function attach(pid: number): Promise<{ stop(): Promise<Map<string, number>> }> {
  const dir = mkdtempSync(join(tmpdir(), 'turn-diff-'));
  const out = join(dir, 'strace.txt');
  const child = spawn('strace', ['-f', '-c', '-p', String(pid), '-o', out], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise((r) => child.once('exit', r));
  await new Promise<void>((resolve, reject) => {
    let said = '';
    child.stderr!.on('data', (d: Buffer) => {
      said += d.toString();
      if (/attached/.test(said)) resolve();
    });
    void exited.then(() => reject(new Error(`strace did not attach to ${pid}: ${said.trim()}`)));
  });
  return {
    stop: async () => {
      child.kill('SIGINT');
      await exited;
      const calls = new Map<string, number>();
      for (const line of readFileSync(out, 'utf8').split('\n')) {
        const f = line.trim().split(/\s+/);
        if (f.length >= 5 && /^\d/.test(f[0]) && f.at(-1) !== 'total') calls.set(f.at(-1)!, Number(f[3]));
      }
      rmSync(dir, { recursive: true, force: true });
      return calls;
    },
  };
}

async function serviceWindow(model: StreamingModelServer, dbUrl: string, profileDir: string | undefined, strace: boolean) {
  process.env.BENCH_API_MAIN = resolve(process.env.DIFF_MAIN ?? 'dist/main.js');
  if (profileDir) process.env.BENCH_API_ARGS = `--cpu-prof --cpu-prof-dir=${profileDir}`;
  else delete process.env.BENCH_API_ARGS;
  const api = await startApi({
    DATABASE_URL: dbUrl,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: uniqueQueuePrefix('turndiff'),
    LLM_BASE_URL: model.baseUrl,
    LLM_MODEL: 'bench',
    LLM_MAX_RETRIES: '0',
  });
  try {
    for (let i = 0; i < WARMUP; i++) await turn(api.url, model);
    const counter = strace ? await attach(api.pid) : undefined;
    const fromUs = nowUs();
    let turns = 0;
    while (nowUs() - fromUs < SECONDS * 1e6) {
      await turn(api.url, model);
      turns++;
    }
    const window: Window = { turns, fromUs, toUs: nowUs() };
    return { window, syscalls: await counter?.stop() };
  } finally {
    await api.stop();
  }
}

/** floor-graph.ts at one client: its window is between its `mark` lines, which it waits on us to answer */
async function graphWindow(model: StreamingModelServer, dbUrl: string, profileDir: string | undefined, strace: boolean) {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      '-r',
      resolve(__dirname, '..', 'test', 'support', 'swc-register.js'),
      resolve(__dirname, 'support', 'floor-graph.ts'),
    ],
    {
      env: {
        ...process.env,
        GRAPH: 'agent',
        PATCHES: '1',
        MODEL_URL: model.baseUrl,
        CHECKPOINTER: 'postgres',
        DB_URL: dbUrl,
        TURNS: String(WARMUP - 100),
        CLIENTS: '1',
        CLIENTS_SECONDS: String(SECONDS),
        WINDOW_MARKS: '1',
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  let out = '';
  let fromUs = 0;
  let toUs = 0;
  let counter: Awaited<ReturnType<typeof attach>> | undefined;
  let syscalls: Map<string, number> | undefined;
  let marks = Promise.resolve();
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    for (let nl = out.indexOf('\n'); nl >= 0 && out.startsWith('mark '); nl = out.indexOf('\n')) {
      const mark = out.slice(5, nl);
      out = out.slice(nl + 1);
      if (mark === 'start')
        marks = marks.then(async () => {
          if (strace) counter = await attach(child.pid!);
          fromUs = nowUs();
          child.stdin!.write('\n');
        });
      else {
        toUs = nowUs();
        marks = marks.then(async () => {
          syscalls = await counter?.stop();
          child.stdin!.end('\n');
        });
      }
    }
  });
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  await marks;
  if (code !== 0) throw new Error(`floor-graph exited with ${code}`);
  const turns = (JSON.parse(out) as { clientTurns: number }).clientTurns;
  return { window: { turns, fromUs, toUs } as Window, syscalls };
}

function profiled(label: string, dir: string, window: Window, syscalls?: Map<string, number>): Side {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`${label}: no profile written`);
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
  const t = selfTimes(profile, window.fromUs - profile.startTime, window.toUs - profile.startTime);
  const per = (m: Map<string, number>) => new Map([...m].map(([k, v]) => [k, v / window.turns]));
  const perCall = syscalls && new Map([...syscalls].map(([k, v]) => [k, v / window.turns]));
  return { label, byModule: per(t.byModule), byFrame: per(t.byFrame), totalUs: t.totalUs / window.turns, syscalls: perCall };
}

/** rows of both sides' values (µs per turn), largest difference first */
function diffTable(title: string, unit: string, a: Map<string, number>, b: Map<string, number>, top: number, scale = 1000): string {
  const keys = [...new Set([...a.keys(), ...b.keys()])];
  const rows = keys
    .map((k) => ({ k, a: a.get(k) ?? 0, b: b.get(k) ?? 0 }))
    .sort((x, y) => Math.abs(y.b - y.a) - Math.abs(x.b - x.a))
    .slice(0, top);
  const n = (v: number) => round(v / scale, 3);
  return [
    `| ${title} | the agent's graph, ${unit} | service, ${unit} | difference |`,
    '|---|---|---|---|',
    ...rows.map((r) => `| \`${r.k.replace(/\|/g, '\\|')}\` | ${n(r.a)} | ${n(r.b)} | ${r.b >= r.a ? '+' : ''}${n(r.b - r.a)} |`),
  ].join('\n');
}

/** the service's own code and the HTTP framework, which the graph has none of */
const SERVICE_ONLY = /^service: |^(router|express|@nestjs\/|body-parser|raw-body|type-is|on-finished|iconv-lite|prom-client|ioredis)/;

async function main(): Promise<void> {
  const model = new StreamingModelServer();
  model.behaviour = { ttftMs: 0, tokensPerSecond: 0, answerTokens: 20 };
  await model.start();
  const strace = process.env.DIFF_STRACE === '1';
  const serviceDb = await createTestDatabase('turndiff');
  const graphDb = await createTestDatabase('turndifffloor');
  const dirs = [mkdtempSync(join(tmpdir(), 'turn-diff-svc-')), mkdtempSync(join(tmpdir(), 'turn-diff-graph-'))];
  try {
    const calls = strace
      ? [
          (await serviceWindow(model, serviceDb.url, undefined, true)).syscalls,
          (await graphWindow(model, graphDb.url, undefined, true)).syscalls,
        ]
      : [];
    const s = await serviceWindow(model, serviceDb.url, dirs[0], false);
    const g = await graphWindow(model, graphDb.url, dirs[1], false);
    const service = profiled('service', dirs[0], s.window, calls[0]);
    const graph = profiled("the agent's graph", dirs[1], g.window, calls[1]);
    // what the service's own modules and its HTTP stack add: the graph runs some of the service's code too (its nodes, tools, patches)
    const own = [...service.byModule]
      .filter(([k]) => SERVICE_ONLY.test(k))
      .reduce((sum, [k, v]) => sum + Math.max(0, v - (graph.byModule.get(k) ?? 0)), 0);
    const lines = [
      `Sequential turns, ${SECONDS} s windows: the service ${s.window.turns} turns, the agent's graph ${g.window.turns}.`,
      '',
      `Event loop's sampled CPU per turn: the service ${round(service.totalUs / 1000, 2)} ms, the agent's graph ${round(graph.totalUs / 1000, 2)} ms (${round(service.totalUs / graph.totalUs, 2)}×); of the difference, ${round(own / 1000, 2)} ms is more time in the service's own code, its HTTP framework, metrics and Redis client.`,
      '',
      diffTable('module', 'ms/turn', graph.byModule, service.byModule, TOP),
      '',
      diffTable('frame', 'ms/turn', graph.byFrame, service.byFrame, TOP),
    ];
    if (service.syscalls && graph.syscalls) lines.push('', diffTable('system call', 'calls/turn', graph.syscalls, service.syscalls, 12, 1));
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    await model.stop();
    await serviceDb.drop();
    await graphDb.drop();
  }
}

void main().then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`${err.stack}\n`);
    process.exit(1);
  },
);
