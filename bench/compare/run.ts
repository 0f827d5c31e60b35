/**
 * `npm run bench:compare` (not in CI): the same LangGraph.js graph (`bench/compare/graph.ts`, ReAct + calculator)
 * served by this service (`node dist/main.js` with LANGGRAPH_CONFIG, Postgres + Redis/BullMQ) and by the reference
 * server (`langgraphjs dev` of `@langchain/langgraph-cli`, in-memory), one after the other, each alone; driven by
 * one client (`@langchain/langgraph-sdk` Client) against one scripted model server (a calculator tool call, then
 * a final answer). Prints a markdown table side by side. See bench/compare/README.md.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { Client } from '@langchain/langgraph-sdk';

import { createTestDatabase, TEST_REDIS_URL, uniqueQueuePrefix } from '../../test/support/infra';
import { type ChatRequest, ScriptedModelServer } from '../../test/support/model-server';
import { percentile, round } from '../lib';

const ROOT = join(__dirname, '..', '..');
const SEQ_RUNS = Number(process.env.COMPARE_SEQ_RUNS ?? 100);
const TP_RUNS = Number(process.env.COMPARE_TP_RUNS ?? 500);
/** client counts of the throughput rows; the goal is at GOAL_CLIENTS */
const TP_CLIENTS = (process.env.COMPARE_TP_CLIENTS ?? '1,5,10,25,50').split(',').map(Number);
const GOAL_CLIENTS = 10;
const STREAM_RUNS = Number(process.env.COMPARE_STREAM_RUNS ?? 50);
const WARMUP = Number(process.env.COMPARE_WARMUP ?? 100);
const MODEL_LATENCY_MS = Number(process.env.COMPARE_MODEL_LATENCY_MS ?? 0);
/** where `npm install @langchain/langgraph-cli@2.0.0 @langchain/langgraph @langchain/core @langchain/openai` was run */
const LGCLI_DIR = process.env.LGCLI_DIR ?? '/tmp/lgcli';
const ONLY = (process.env.COMPARE_ONLY ?? 'ours,reference').split(',');
const ASSISTANT = 'react_calc';
const FLOOR = 'floor: the graph behind bare node:http, MemorySaver';
const FLOOR_PG = 'the same with the official PostgresSaver';
const INPUT = { messages: [{ type: 'human', content: 'What is 6*7?' }] };

interface Result {
  name: string;
  seq: number[];
  /** runs/s by number of concurrent clients */
  tp: Map<number, number>;
  ttfe: number[];
  streamTotal: number[];
  failures: number;
  note?: string;
}

/** The model: a calculator call, then a final text quoting the tool's result. */
function responder(req: ChatRequest) {
  const last = req.messages[req.messages.length - 1];
  if (last?.role === 'tool') return { content: `The answer is ${String(last.content)}.` };
  return { toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] };
}

function spawnServer(cmd: string, args: string[], cwd: string, env: Record<string, string>, logTo: string[]): ChildProcess {
  const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const keep = (b: Buffer) => {
    logTo.push(b.toString());
    if (logTo.length > 200) logTo.shift();
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return child;
}

/** Stop a server this script started: SIGTERM to its own process group (npx → node children), then SIGKILL. */
async function stopServer(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    process.kill(-child.pid, signal);
  } catch {
    /* already gone */
  }
  const t = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }, 10_000);
  await exited;
  clearTimeout(t);
}

async function waitReady(client: Client, child: ChildProcess, log: string[], timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${log.join('').slice(-3000)}`);
    try {
      const found = await client.assistants.search({ graphId: ASSISTANT, limit: 10 });
      if (found.length > 0) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > until) throw new Error(`server not ready after ${timeoutMs} ms:\n${log.join('').slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function answerOf(state: any): string {
  const msgs = state?.messages ?? [];
  const last = msgs[msgs.length - 1];
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content);
}

async function measure(name: string, client: Client, model: ScriptedModelServer): Promise<Result> {
  let failures = 0;
  const oneRun = async (threadId: string) => {
    const state = await client.runs.wait(threadId, ASSISTANT, { input: INPUT });
    if (answerOf(state) !== 'The answer is 42.') {
      failures++;
      if (failures <= 3) console.error(`[${name}] unexpected result: ${JSON.stringify(state).slice(0, 400)}`);
    }
  };
  /** `runs` runs.wait on pre-created threads by `clients` concurrent clients: runs/s */
  const concurrently = async (clients: number, runs: number): Promise<number> => {
    const threads = await Promise.all(Array.from({ length: runs }, () => client.threads.create()));
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (next < threads.length) await oneRun(threads[next++].thread_id);
      }),
    );
    return runs / ((performance.now() - t0) / 1000);
  };
  // warm-up: one client, then GOAL_CLIENTS at once (a server's first concurrent runs open its pool's connections)
  for (let i = 0; i < WARMUP; i++) await oneRun((await client.threads.create()).thread_id);
  await concurrently(GOAL_CLIENTS, WARMUP);
  const callsBefore = model.callCount;

  // 1. sequential latency, one client (runs.wait on a fresh thread; the thread is created before the clock starts)
  const seq: number[] = [];
  for (let i = 0; i < SEQ_RUNS; i++) {
    const { thread_id } = await client.threads.create();
    const t0 = performance.now();
    await oneRun(thread_id);
    seq.push(performance.now() - t0);
  }

  // 2. throughput: TP_RUNS runs at each number of concurrent clients (threads created beforehand)
  const tp = new Map<number, number>();
  for (const clients of TP_CLIENTS) tp.set(clients, await concurrently(clients, TP_RUNS));

  // 3. time to the first streamed event that is not `metadata` (runs.stream, stream mode `values`), and to the end
  const ttfe: number[] = [];
  const streamTotal: number[] = [];
  for (let i = 0; i < STREAM_RUNS; i++) {
    const { thread_id } = await client.threads.create();
    const s0 = performance.now();
    let first = NaN;
    let last: any;
    for await (const ev of client.runs.stream(thread_id, ASSISTANT, { input: INPUT, streamMode: 'values' })) {
      if (ev.event !== 'metadata' && Number.isNaN(first)) first = performance.now() - s0;
      if (ev.event === 'values') last = ev.data;
      if (ev.event === 'error') failures++;
    }
    streamTotal.push(performance.now() - s0);
    ttfe.push(first);
    if (answerOf(last) !== 'The answer is 42.') failures++;
  }
  const expectedCalls = 2 * (SEQ_RUNS + TP_RUNS * TP_CLIENTS.length + STREAM_RUNS);
  const calls = model.callCount - callsBefore;
  const note = calls !== expectedCalls ? `model calls ${calls}, expected ${expectedCalls}` : undefined;
  return { name, seq, tp, ttfe, streamTotal, failures, note };
}

interface Started {
  child: ChildProcess;
  client: Client;
  log: string[];
}

const ourPort = Number(process.env.COMPARE_OURS_PORT ?? 2125);
const refPort = Number(process.env.COMPARE_REFERENCE_PORT ?? 2124);
const floorPort = Number(process.env.COMPARE_FLOOR_PORT ?? 2126);
const clientFor = (port: number) => new Client({ apiUrl: `http://127.0.0.1:${port}`, callerOptions: { maxRetries: 0 }, timeoutMs: 60_000 });

async function startOurs(model: ScriptedModelServer, dbUrl: string, prefix: string, extra: Record<string, string> = {}): Promise<Started> {
  const log: string[] = [];
  const child = spawnServer(
    process.execPath,
    [...(process.env.COMPARE_OURS_NODE_ARGS ?? '').split(' ').filter(Boolean), join(ROOT, 'dist', 'main.js')],
    ROOT,
    {
      DATABASE_URL: dbUrl,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: prefix,
      LANGGRAPH_CONFIG: join(__dirname, 'langgraph.json'),
      COMPARE_MODEL_BASE_URL: model.baseUrl,
      PORT: String(ourPort),
      HOST: '127.0.0.1',
      RATE_LIMIT_PER_MINUTE: '0',
      LLM_BASE_URL: model.baseUrl,
      LLM_MODEL: 'scripted',
      LOG_LEVEL: 'warn',
      ...extra,
    },
    log,
  );
  const client = clientFor(ourPort);
  await waitReady(client, child, log);
  return { child, client, log };
}

function referenceDir(): string {
  if (!existsSync(join(LGCLI_DIR, 'node_modules', '@langchain', 'langgraph-cli'))) {
    throw new Error(`@langchain/langgraph-cli not installed in ${LGCLI_DIR} (see bench/compare/README.md)`);
  }
  // the graph module goes next to the CLI's own @langchain packages, so it resolves them from there
  const dir = join(LGCLI_DIR, 'compare');
  mkdirSync(dir, { recursive: true });
  for (const f of ['graph.ts', 'langgraph.json']) copyFileSync(join(__dirname, f), join(dir, f));
  return dir;
}

async function startReference(model: ScriptedModelServer): Promise<Started> {
  const dir = referenceDir();
  const log: string[] = [];
  const child = spawnServer(
    'npx',
    [
      '@langchain/langgraph-cli',
      'dev',
      '--no-browser',
      '--port',
      String(refPort),
      '--host',
      '127.0.0.1',
      '--config',
      join(dir, 'langgraph.json'),
    ],
    LGCLI_DIR,
    { LANGGRAPH_CLI_NO_ANALYTICS: '1', COMPARE_MODEL_BASE_URL: model.baseUrl },
    log,
  );
  const client = clientFor(refPort);
  await waitReady(client, child, log);
  return { child, client, log };
}

/** The floor (`floor-server.ts`): the graph behind bare `node:http` in its own process, in memory or on Postgres. */
async function runFloor(model: ScriptedModelServer, postgres: boolean): Promise<Result> {
  const db = postgres ? await createTestDatabase('compare_floor') : undefined;
  const log: string[] = [];
  const child = spawnServer(
    process.execPath,
    ['-r', join(ROOT, 'test', 'support', 'swc-register.js'), join(__dirname, 'floor-server.ts')],
    ROOT,
    { PORT: String(floorPort), COMPARE_MODEL_BASE_URL: model.baseUrl, ...(db ? { DB_URL: db.url } : {}) },
    log,
  );
  try {
    const client = clientFor(floorPort);
    await waitReady(client, child, log);
    return await measure(postgres ? FLOOR_PG : FLOOR, client, model);
  } finally {
    await stopServer(child);
    await db?.drop().catch(() => undefined);
  }
}

async function runOurs(model: ScriptedModelServer): Promise<Result> {
  const db = await createTestDatabase('compare');
  let s: Started | undefined;
  try {
    s = await startOurs(model, db.url, uniqueQueuePrefix('compare'));
    return await measure('this service', s.client, model);
  } finally {
    if (s) await stopServer(s.child);
    await db.drop().catch(() => undefined);
  }
}

async function runReference(model: ScriptedModelServer): Promise<Result> {
  const s = await startReference(model);
  try {
    return await measure('reference (langgraphjs dev)', s.client, model);
  } finally {
    await stopServer(s.child);
  }
}

/**
 * Crash test: a run in flight (the model answers after COMPARE_KILL_MODEL_MS) when the server is SIGKILLed; the
 * server is started again and the client joins the run. Does the run complete, with the right answer?
 */
async function killTest(model: ScriptedModelServer, which: 'ours' | 'reference'): Promise<string> {
  const db = which === 'ours' ? await createTestDatabase('compare_kill') : undefined;
  const prefix = uniqueQueuePrefix('compare_kill');
  const extra = { RUN_LOCK_MS: '5000', RUN_STALLED_CHECK_MS: '2500' };
  const start = () => (which === 'ours' ? startOurs(model, db!.url, prefix, extra) : startReference(model));
  let s: Started | undefined;
  const latency = model.latencyMs;
  try {
    s = await start();
    const thread = await s.client.threads.create();
    model.latencyMs = Number(process.env.COMPARE_KILL_MODEL_MS ?? 3000);
    const calls = model.callCount;
    const run = await s.client.runs.create(thread.thread_id, ASSISTANT, { input: INPUT });
    const until = Date.now() + 30_000;
    while (model.callCount === calls && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    if (model.callCount === calls) return 'run never reached the model';
    await stopServer(s.child, 'SIGKILL');
    const killedAt = performance.now();
    s = await start();
    try {
      await s.client.runs.join(thread.thread_id, run.run_id);
      const state = await s.client.threads.getState(thread.thread_id);
      const after = round((performance.now() - killedAt) / 1000, 1);
      const runInfo = await s.client.runs.get(thread.thread_id, run.run_id).catch(() => undefined);
      const answer = answerOf(state.values);
      return answer === 'The answer is 42.'
        ? `completed after restart (${after} s after the kill, run status ${runInfo?.status ?? '?'})`
        : `not completed: run status ${runInfo?.status ?? '?'}, last message ${JSON.stringify(answer).slice(0, 80)}`;
    } catch (err) {
      return `lost: ${(err as Error).message.slice(0, 160)}`;
    }
  } catch (err) {
    return `not measured: ${(err as Error).message.split('\n')[0]}`;
  } finally {
    model.latencyMs = latency;
    if (s) await stopServer(s.child);
    await db?.drop().catch(() => undefined);
  }
}

function report(results: Result[], errors: string[]): string {
  const fmt = (n: number, unit: string) => (Number.isFinite(n) ? `${round(n, 1)} ${unit}` : '—');
  const rows: Array<[string, (r: Result) => number, string, boolean]> = [
    [`sequential runs.wait latency p50 (${SEQ_RUNS} runs, 1 client)`, (r) => percentile(r.seq, 50), 'ms', true],
    ['sequential runs.wait latency p99', (r) => percentile(r.seq, 99), 'ms', true],
    ...TP_CLIENTS.map((c): [string, (r: Result) => number, string, boolean] => [
      `throughput, ${c} client${c === 1 ? '' : 's'} (${TP_RUNS} runs)${c === GOAL_CLIENTS ? ' — the goal' : ''}`,
      (r) => r.tp.get(c) ?? NaN,
      'runs/s',
      false,
    ]),
    [`runs.stream: first non-metadata event p50 (${STREAM_RUNS} runs)`, (r) => percentile(r.ttfe, 50), 'ms', true],
    ['runs.stream: first non-metadata event p99', (r) => percentile(r.ttfe, 99), 'ms', true],
    ['runs.stream: whole run p50', (r) => percentile(r.streamTotal, 50), 'ms', true],
  ];
  const ours = results.find((r) => r.name === 'this service');
  const ref = results.find((r) => r.name === 'reference (langgraphjs dev)');
  const floors = results.filter((r) => r.name === FLOOR || r.name === FLOOR_PG);
  const head = ['measure', 'this service', 'reference (langgraphjs dev)', 'ratio (ours / reference)', ...floors.map((r) => r.name)];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const [label, f, unit] of rows) {
    const a = ours ? f(ours) : NaN;
    const b = ref ? f(ref) : NaN;
    const ratio = Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? `${round(a / b, 2)}×` : '—';
    lines.push(`| ${label} | ${fmt(a, unit)} | ${fmt(b, unit)} | ${ratio} |${floors.map((r) => ` ${fmt(f(r), unit)} |`).join('')}`);
  }
  lines.push(
    `| failed / wrong runs | ${ours ? ours.failures : '—'} | ${ref ? ref.failures : '—'} | |${floors.map((r) => ` ${r.failures} |`).join('')}`,
  );
  const notes = results.filter((r) => r.note).map((r) => `${r.name}: ${r.note}`);
  return [lines.join('\n'), ...notes, ...errors].join('\n');
}

async function main(): Promise<void> {
  const model = new ScriptedModelServer();
  await model.start();
  model.setResponder(responder);
  model.latencyMs = MODEL_LATENCY_MS;
  const results: Result[] = [];
  const errors: string[] = [];
  for (const which of ONLY) {
    try {
      console.error(`— measuring ${which} …`);
      results.push(
        which === 'ours'
          ? await runOurs(model)
          : which.startsWith('floor')
            ? await runFloor(model, which === 'floor-pg')
            : await runReference(model),
      );
    } catch (err) {
      errors.push(`${which}: not measured — ${(err as Error).message.split('\n').slice(0, 12).join('\n')}`);
    }
  }
  const kills: string[] = [];
  if (process.env.COMPARE_KILL === '1') {
    for (const which of ONLY.filter((w) => !w.startsWith('floor'))) {
      console.error(`— crash test ${which} …`);
      kills.push(
        `| ${which === 'ours' ? 'this service' : 'reference (langgraphjs dev)'} | ${await killTest(model, which as 'ours' | 'reference')} |`,
      );
    }
  }
  await model.stop();
  console.log(
    `\nscripted model latency ${MODEL_LATENCY_MS} ms; ${new Date().toISOString().slice(0, 10)}; Node ${process.version}; ` +
      `load average ${(await import('node:os'))
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
  );
  console.log(report(results, errors));
  if (kills.length) console.log(['', '| SIGKILL with a run in flight, restart, runs.join | outcome |', '|---|---|', ...kills].join('\n'));
  process.exit(0);
}

void main();
