/**
 * The performance issue's targets (#12): the react turn of `node dist/main.js` against a model server that streams
 * like hosted models, on Postgres + Redis and on the embedded default (PGlite, in-process queue).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';

import { TEST_REDIS_URL, uniqueQueuePrefix } from '../test/support/infra';
import { round } from './lib';
import { StreamingModelServer } from './support/streaming-model-server';
import { breakdownTable, sequential, type SequentialResult, sseOverhead, startApi, throughput, turn } from './turn.bench';

export type Row = [measure: string, result: string, target: string, command: string];

const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const CLIENT_SECONDS = Number(process.env.BENCH_CLIENT_SECONDS ?? 15);

function modelEnv(model: StreamingModelServer): Record<string, string> {
  return { LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'bench', LLM_MAX_RETRIES: '0' };
}

const postgresEnv = (dbUrl: string) => ({ DATABASE_URL: dbUrl, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: uniqueQueuePrefix('bench') });

/** The embedded default: no DATABASE_URL (PGlite in DATA_DIR), no REDIS_URL (in-process queue and cache). */
async function withEmbedded<T>(fn: (env: Record<string, string>) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-pglite-'));
  try {
    return await fn({ DATA_DIR: dir });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function sequentialOn(
  model: StreamingModelServer,
  env: Record<string, string>,
  answerTokens: number,
  turns = TURNS,
): Promise<SequentialResult> {
  model.behaviour = { ttftMs: 0, tokensPerSecond: 0, answerTokens };
  const api = await startApi({ ...env, ...modelEnv(model) });
  try {
    return await sequential(api, model, turns);
  } finally {
    await api.stop();
  }
}

export async function benchTargets(dbUrl: string): Promise<Row[]> {
  const model = new StreamingModelServer();
  await model.start();
  const cmd = '`BENCH_ONLY=turn npm run bench`';
  const rows: Row[] = [];
  try {
    const t20 = await sequentialOn(model, postgresEnv(dbUrl), 20);
    rows.push([
      `react turn overhead, 1 client, 20-token answers, p50 / p99 (${TURNS} turns)`,
      `${round(t20.overhead.p50)} / ${round(t20.overhead.p99)} ms`,
      '≤ 8 / ≤ 25 ms',
      cmd,
    ]);
    rows.push(['… model requests streamed (no SSE client, no token events)', `${t20.streamed} of ${t20.requests}`, '0', cmd]);
    rows.push(['API + worker CPU per react turn (2 model calls, 1 tool; one process)', `${round(t20.cpuMsPerTurn)} ms`, '≤ 6 ms', cmd]);
    const t300 = await sequentialOn(model, postgresEnv(dbUrl), 300);
    rows.push(['… the same with 300-token answers, overhead p50', `${round(t300.overhead.p50)} ms`, 'report', cmd]);

    // streamed to a client: POST /v1/chat/stream (token events through the run event bus)
    model.behaviour = { ttftMs: 0, tokensPerSecond: 0, answerTokens: 20 };
    const api = await startApi({ ...postgresEnv(dbUrl), ...modelEnv(model) });
    try {
      const s20 = await sseOverhead(api, model, Math.min(TURNS, 100));
      model.behaviour.answerTokens = 300;
      const s300 = await sseOverhead(api, model, Math.min(TURNS, 100));
      const perChunk = ((s300.p50 - s20.p50) / Math.max(1, s300.tokens - s20.tokens)) * 1000;
      rows.push([
        `streamed turn (\`POST /v1/chat/stream\`), 20 → 300-token answers: added cost per streamed chunk`,
        `${round(perChunk, 0)} µs (${round(s20.p50)} → ${round(s300.p50)} ms, ${s20.tokens} → ${s300.tokens} token events)`,
        '≤ 20 µs',
        cmd,
      ]);
      model.behaviour.answerTokens = 20;
      const tps = await throughput(api, model, 10, CLIENT_SECONDS);
      rows.push([`react turns/s, 10 clients, \`POST /v1/chat\` (${CLIENT_SECONDS} s)`, `${round(tps)} turns/s`, '≥ 100', cmd]);
    } finally {
      await api.stop();
    }
    // the same with one API process per core (node:cluster), as a deployment on this machine would run it
    const cores = await startApi({ ...postgresEnv(dbUrl), ...modelEnv(model), WEB_CONCURRENCY: 'auto' });
    try {
      for (let i = 0; i < 5; i++) await Promise.all(Array.from({ length: 10 }, () => turn(cores.url, model)));
      const tps = await throughput(cores, model, 10, CLIENT_SECONDS);
      rows.push([`… with \`WEB_CONCURRENCY=auto\` (${availableParallelism()} API processes)`, `${round(tps)} turns/s`, 'report', cmd]);
    } finally {
      await cores.stop();
    }

    const embedded = await withEmbedded((env) => sequentialOn(model, env, 20, Math.min(TURNS, 100)));
    rows.push([
      'embedded default (PGlite, in-process queue): react turn latency p50 / overhead p50',
      `${round(embedded.latency.p50)} / ${round(embedded.overhead.p50)} ms (${round(embedded.latency.p50 / t20.latency.p50, 1)}× Postgres)`,
      'report, ≤ 2× Postgres',
      cmd,
    ]);
  } finally {
    await model.stop();
  }
  return rows;
}

/** `npm run bench -- --breakdown`: the phases of a react turn (PHASE_TIMINGS=true) on Postgres + Redis and embedded. */
export async function benchBreakdown(dbUrl: string): Promise<string> {
  const model = new StreamingModelServer();
  await model.start();
  const turns = Math.min(TURNS, 100);
  try {
    const pg = await sequentialOn(model, { ...postgresEnv(dbUrl), PHASE_TIMINGS: 'true' }, 20, turns);
    const emb = await withEmbedded((env) => sequentialOn(model, { ...env, PHASE_TIMINGS: 'true' }, 20, turns));
    return [
      `Postgres 15 + Redis 7, ${turns} sequential react turns (20-token answers, model at 0 ms):\n`,
      breakdownTable(pg.samples),
      `\nEmbedded default (PGlite + in-process queue and cache), ${turns} turns:\n`,
      breakdownTable(emb.samples),
    ].join('\n');
  } finally {
    await model.stop();
  }
}
