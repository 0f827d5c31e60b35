/**
 * The react turn as a user runs it: `node dist/main.js` in its own process, `POST /v1/chat`, against a model
 * server that streams like hosted models (bench/support/streaming-model-server.ts). Overhead = a turn's latency
 * minus the time its model calls spent inside the model server.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { cpuSecondsOf, percentile, round } from './lib';
import type { StreamingModelServer } from './support/streaming-model-server';

export interface ApiProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** `node dist/main.js` with the given environment (extra node flags from BENCH_API_ARGS, e.g. --cpu-prof). */
export async function startApi(env: Record<string, string>): Promise<ApiProcess> {
  const port = await freePort();
  const args = process.env.BENCH_API_ARGS ? process.env.BENCH_API_ARGS.split(' ') : [];
  // BENCH_API_MAIN: another build's main.js (A/B runs back to back)
  const main = process.env.BENCH_API_MAIN ?? join(__dirname, '..', '..', '..', 'dist', 'main.js');
  const child = spawn(process.execPath, [...args, main], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'error', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`dist/main.js exited with ${child.exitCode}`);
    const up = await fetch(`${url}/health/live`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error('dist/main.js did not start in 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface TurnSample {
  total: number;
  model: number;
  /** Server-Timing of the response (PHASE_TIMINGS=true), name → ms, plus `origin` (epoch ms of the server's start) */
  timing: Map<string, number>;
  sent: number;
}

let turnSeq = 0;

/** One react turn (a message of its own: the LLM cache misses, as it does for real traffic); throws unless it made its two model calls. */
export async function turn(url: string, model: StreamingModelServer): Promise<TurnSample> {
  const servedBefore = model.served.length;
  const sent = performance.timeOrigin + performance.now();
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: `What is 12 times 7? (turn ${++turnSeq})`, agent: 'react' }),
  });
  const body = (await res.json()) as { llm_calls?: number; error?: unknown };
  const total = performance.now() - t0;
  if (res.status !== 200 || body.llm_calls !== 2 || body.error) throw new Error(`unexpected turn: ${res.status} ${JSON.stringify(body)}`);
  const model_ = model.served.slice(servedBefore).reduce((s, r) => s + r.ms, 0);
  return { total, model: model_, timing: parseServerTiming(res.headers.get('server-timing')), sent };
}

/** One react turn over `POST /v1/chat/stream` (token events): latency to the `result` event, and the tokens seen. */
export async function sseTurn(url: string, model: StreamingModelServer): Promise<{ total: number; model: number; tokens: number }> {
  const servedBefore = model.served.length;
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/chat/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: `What is 12 times 7? (turn ${++turnSeq})`, agent: 'react' }),
  });
  const text = await res.text();
  const total = performance.now() - t0;
  const tokens = text.split('event: token').length - 1;
  if (res.status !== 200 || !text.includes('event: result') || !tokens)
    throw new Error(`unexpected stream: ${res.status} ${text.slice(0, 300)}`);
  return { total, model: model.served.slice(servedBefore).reduce((s, r) => s + r.ms, 0), tokens };
}

/** Overhead p50 of `turns` streamed turns, and the token events per turn. */
export async function sseOverhead(api: ApiProcess, model: StreamingModelServer, turns: number): Promise<{ p50: number; tokens: number }> {
  for (let i = 0; i < 10; i++) await sseTurn(api.url, model);
  const samples = [];
  for (let i = 0; i < turns; i++) samples.push(await sseTurn(api.url, model));
  return {
    p50: percentile(
      samples.map((s) => s.total - s.model),
      50,
    ),
    tokens: percentile(
      samples.map((s) => s.tokens),
      50,
    ),
  };
}

/** `name;dur=1.2, …` → name → ms (repeated names add up) */
export function parseServerTiming(header: string | null): Map<string, number> {
  const out = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().split(';');
    const dur = params.find((p) => p.startsWith('dur='));
    if (name && dur) out.set(name, (out.get(name) ?? 0) + Number(dur.slice(4)));
  }
  return out;
}

export interface SequentialResult {
  samples: TurnSample[];
  overhead: { p50: number; p99: number };
  latency: { p50: number; p99: number };
  cpuMsPerTurn: number;
  streamed: number;
  requests: number;
}

export async function sequential(api: ApiProcess, model: StreamingModelServer, turns: number, warmup = 100): Promise<SequentialResult> {
  for (let i = 0; i < warmup; i++) await turn(api.url, model);
  const servedBefore = model.served.length;
  const cpu0 = cpuSecondsOf(api.pid);
  const samples: TurnSample[] = [];
  for (let i = 0; i < turns; i++) samples.push(await turn(api.url, model));
  const cpu = cpuSecondsOf(api.pid) - cpu0;
  const overheads = samples.map((s) => s.total - s.model);
  const totals = samples.map((s) => s.total);
  const served = model.served.slice(servedBefore);
  return {
    samples,
    overhead: { p50: percentile(overheads, 50), p99: percentile(overheads, 99) },
    latency: { p50: percentile(totals, 50), p99: percentile(totals, 99) },
    cpuMsPerTurn: (cpu * 1000) / turns,
    streamed: served.filter((s) => s.streamed).length,
    requests: served.length,
  };
}

/** Turns per second with `clients` clients each running turns back to back for `seconds`. */
export async function throughput(api: ApiProcess, model: StreamingModelServer, clients: number, seconds: number): Promise<number> {
  for (let i = 0; i < 10; i++) await turn(api.url, model);
  let done = 0;
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        await turn(api.url, model);
        done++;
      }
    }),
  );
  return done / ((performance.now() - t0) / 1000);
}

/** The phases of the median turn, and each phase's p50 over all turns. */
export function breakdownTable(samples: TurnSample[]): string {
  const names = [...new Set(samples.flatMap((s) => [...s.timing.keys()]))].filter((n) => n !== 'origin');
  const rows = names.map((n) => {
    const vals = samples.map((s) => s.timing.get(n) ?? 0);
    return `| ${n} | ${round(percentile(vals, 50), 2)} | ${round(percentile(vals, 99), 2)} |`;
  });
  const http = samples.map((s) => s.total - (s.timing.get('server') ?? s.total));
  const model = samples.map((s) => s.model);
  const overhead = samples.map((s) => s.total - s.model);
  return [
    '| phase (ms per turn) | p50 | p99 |',
    '|---|---|---|',
    `| client → server → client (HTTP in + out, outside the handler) | ${round(percentile(http, 50), 2)} | ${round(percentile(http, 99), 2)} |`,
    ...rows,
    `| model time inside the model server (2 calls) | ${round(percentile(model, 50), 2)} | ${round(percentile(model, 99), 2)} |`,
    `| **turn overhead (latency − model time)** | ${round(percentile(overhead, 50), 2)} | ${round(percentile(overhead, 99), 2)} |`,
  ].join('\n');
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}
