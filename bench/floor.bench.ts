/**
 * The floor under the turn targets: the same react turn on the bare stack the service is made of (LangGraph.js,
 * `@langchain/openai`, the official Postgres checkpointer), in its own process, no HTTP, no run records
 * (bench/support/floor-graph.ts), against the same streaming model server as `turn`. What the service adds to
 * a turn is its figure minus these.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { Queue } from 'bullmq';

import { createTestDatabase, TEST_REDIS_URL, uniqueQueuePrefix } from '../test/support/infra';
import { cpuSecondsOf, percentile, round } from './lib';
import { StreamingModelServer } from './support/streaming-model-server';

type Row = [string, string, string, string];

export interface FloorResult {
  latencies: number[];
  cpuMsPerTurn: number;
  chunksPerTurn: number;
  perSecond: number;
}

export function runFloor(env: Record<string, string>): Promise<FloorResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(__dirname, 'support', 'floor-graph.js')], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as FloorResult) : reject(new Error(`floor-graph exited with ${code}`)),
    );
  });
}

export async function benchFloor(dbUrl: string): Promise<Row[]> {
  const model = new StreamingModelServer();
  await model.start();
  const cmd = '`BENCH_ONLY=floor npm run bench`';
  const rows: Row[] = [];
  try {
    for (const [label, checkpointer, graph, patches] of [
      ['no checkpointer', 'none', 'bare', '0'],
      ['official PostgresSaver (durability exit, as a react turn here)', 'postgres', 'bare', '0'],
      ["the service's react graph (the agent's five nodes, twelve state fields), official PostgresSaver", 'postgres', 'agent', '0'],
      // what the service's graph costs in the service's process before anything of the service runs around it
      ["the service's react graph with the service's library patches (`src/platform/`), official PostgresSaver", 'postgres', 'agent', '1'],
    ] as const) {
      const served = model.served.length;
      const r = await runFloor({
        MODEL_URL: model.baseUrl,
        CHECKPOINTER: checkpointer,
        DB_URL: dbUrl,
        TURNS: '200',
        CLIENTS: '10',
        GRAPH: graph,
        PATCHES: patches,
      });
      // model time per turn: the median request's time inside the model server, twice (two calls per turn)
      const modelMs =
        2 *
        percentile(
          model.served.slice(served).map((s) => s.ms),
          50,
        );
      const overheads = r.latencies.map((l) => l - modelMs);
      rows.push([
        `floor — bare LangGraph + ChatOpenAI react turn, ${label}: overhead p50 / p99, CPU per turn, turns/s at 10 clients`,
        `${round(percentile(overheads, 50))} / ${round(percentile(overheads, 99))} ms, ${round(r.cpuMsPerTurn)} ms, ${round(r.perSecond)} turns/s`,
        'reference for the rows above',
        cmd,
      ]);
    }
    // the cost of a streamed chunk: the same turn streamed in `messages` mode, 20- and 300-token answers
    const streamed: FloorResult[] = [];
    for (const answerTokens of [20, 300]) {
      model.behaviour = { ttftMs: 0, tokensPerSecond: 0, answerTokens };
      streamed.push(await runFloor({ MODEL_URL: model.baseUrl, CHECKPOINTER: 'none', TURNS: '200', CLIENTS: '0', STREAM: 'messages' }));
    }
    model.behaviour = { ttftMs: 0, tokensPerSecond: 0, answerTokens: 20 };
    const [s20, s300] = streamed;
    const added = s300.chunksPerTurn - s20.chunksPerTurn;
    const latencyPerChunk = ((percentile(s300.latencies, 50) - percentile(s20.latencies, 50)) / added) * 1000;
    const cpuPerChunk = ((s300.cpuMsPerTurn - s20.cpuMsPerTurn) / added) * 1000;
    rows.push([
      'floor — the same turn streamed (`graph.stream`, mode `messages`), 20 → 300-token answers: added latency p50 / CPU per streamed chunk',
      `${round(latencyPerChunk, 0)} µs / ${round(cpuPerChunk, 0)} µs (${round(s20.chunksPerTurn)} → ${round(s300.chunksPerTurn)} chunks a turn)`,
      'reference for the row above',
      cmd,
    ]);
  } finally {
    await model.stop();
  }
  return rows;
}

/**
 * The queued runs of run.ts's `queued` section on the bare stack (bench/support/floor-queue.ts): `workers` BullMQ
 * worker processes × `concurrency`, `count` jobs added in batches of 50 as fast as they go (the same burst as the
 * API's `POST /v1/jobs`), after a warm-up of two jobs per slot. Runs/s from the first add to the last completion.
 */
export async function floorQueued(
  modelUrl: string,
  count: number,
  workers: number,
  concurrency: number,
): Promise<{ rate: number; execP50: number; cpuMsPerRun: number }> {
  const db = await createTestDatabase('floorq');
  const saver = PostgresSaver.fromConnString(db.url);
  await saver.setup();
  await saver.end();
  const prefix = uniqueQueuePrefix('floorq');
  const url = new URL(TEST_REDIS_URL);
  const queue = new Queue('floor', { connection: { host: url.hostname, port: Number(url.port || 6379) }, prefix });
  const env = { PATH: process.env.PATH ?? '', MODEL_URL: modelUrl, DB_URL: db.url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix };
  const procs = Array.from({ length: workers }, () =>
    // BENCH_WORKER_ARGS (e.g. --cpu-prof) as for the service's workers: the two profiles side by side
    spawn(process.execPath, [...(process.env.BENCH_WORKER_ARGS?.split(' ') ?? []), join(__dirname, 'support', 'floor-queue.js')], {
      env: { ...env, CONCURRENCY: String(concurrency) },
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const drained = async (total: number) => {
    for (;;) {
      const c = await queue.getJobCounts('completed', 'failed');
      if (c.completed + c.failed >= total) return c.failed;
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const add = async (n: number) => {
    for (let i = 0; i < n; i += 50) await Promise.all(Array.from({ length: Math.min(50, n - i) }, () => queue.add('run', {})));
  };
  try {
    await Promise.all(
      procs.map(
        (p) =>
          new Promise((resolve, reject) => {
            p.stdout!.once('data', resolve);
            p.once('exit', (code) => reject(new Error(`floor-queue exited with ${code}`)));
          }),
      ),
    );
    const warm = workers * concurrency * 2;
    await add(warm);
    await drained(warm);
    const cpu0 = procs.reduce((sum, p) => sum + cpuSecondsOf(p.pid!), 0);
    const t0 = Date.now();
    await add(count);
    const failed = await drained(warm + count);
    if (failed) throw new Error(`${failed} floor jobs failed`);
    const rate = count / ((Date.now() - t0) / 1000);
    const cpu = procs.reduce((sum, p) => sum + cpuSecondsOf(p.pid!), 0) - cpu0;
    const jobs = await queue.getJobs(['completed'], 0, count - 1);
    const execP50 = percentile(
      jobs.map((j) => (j.finishedOn ?? 0) - (j.processedOn ?? 0)),
      50,
    );
    return { rate, execP50, cpuMsPerRun: (cpu * 1000) / count };
  } finally {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)))));
    await queue.close();
    await db.drop();
  }
}
