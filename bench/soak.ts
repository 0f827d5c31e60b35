/**
 * `npm run bench:soak` runs the memory soak of `soak-turns.ts`; `SOAK_MODE=kill npm run bench:soak` this kill soak
 * (not in CI): SOAK_RUNS queued runs (default 10,000) through an API process and worker
 * processes while a worker is killed with SIGKILL every SOAK_KILL_EVERY_MS. Every run asks the model for one
 * `get_weather` call (a counted side effect on a local server) and then answers. Reports runs lost, duplicated
 * tool effects, duplicated messages, time to recover after each kill, and RSS of the API and of a worker that
 * is never killed, over time. Real Postgres and Redis (see TOOLING.md), scripted model, no internet.
 */
import { Queue } from 'bullmq';
import { Client } from 'pg';

import { redisOptions } from '../src/config/redis-options';
import { RUNS_QUEUE } from '../src/runs/run.job';
import { WeatherServer } from '../test/reliability/support/weather-server';
import { createTestDatabase, TEST_REDIS_URL, uniqueQueuePrefix } from '../test/support/infra';
import { type ChatRequest, ScriptedModelServer } from '../test/support/model-server';
import { WorkerProcess } from '../test/support/worker-process';
import { percentile, round } from './lib';
import { soakTurns } from './soak-turns';

const RUNS = Number(process.env.SOAK_RUNS ?? 10_000);
const KILL_EVERY_MS = Number(process.env.SOAK_KILL_EVERY_MS ?? 15_000);
const IN_FLIGHT = Number(process.env.SOAK_IN_FLIGHT ?? 40);
const MODEL_LATENCY_MS = Number(process.env.SOAK_MODEL_LATENCY_MS ?? 40);
/** cap each process's V8 old space (MB): a leak then ends in an out-of-memory crash instead of slow growth */
const HEAP_MB = process.env.SOAK_HEAP_MB;
const LOCK_MS = process.env.RUN_LOCK_MS ?? '5000';
const STALL_MS = process.env.RUN_STALLED_CHECK_MS ?? '2500';

/** The model: a get_weather call for the run's own city (its tag), then an answer quoting the tool. */
function responder(req: ChatRequest) {
  const last = req.messages[req.messages.length - 1];
  if (last?.role === 'tool') return { content: `done: ${String(last.content).slice(0, 30)}` };
  const tag = String(last?.content ?? '').match(/run-\d+/)?.[0] ?? 'unknown';
  return { toolCalls: [{ name: 'get_weather', args: { city: tag } }] };
}

async function main(): Promise<void> {
  const model = new ScriptedModelServer();
  const weather = new WeatherServer();
  await model.start();
  await weather.start();
  model.setResponder(responder);
  model.latencyMs = MODEL_LATENCY_MS;
  const db = await createTestDatabase('soak');
  const prefix = uniqueQueuePrefix('soak');
  const env = {
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    LLM_BASE_URL: model.baseUrl,
    LLM_MODEL: 'soak',
    LLM_MAX_RETRIES: '0',
    LLM_CACHE: 'false',
    DEFAULT_AGENT: 'assistant',
    OPENWEATHER_API_KEY: 'soak',
    OPENWEATHER_BASE_URL: weather.baseUrl,
    TOOLS_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
    RUN_LOCK_MS: LOCK_MS,
    RUN_STALLED_CHECK_MS: STALL_MS,
    LOG_LEVEL: 'warn',
    ...(HEAP_MB ? { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` } : {}),
  };
  const port = 3900 + Math.floor(Math.random() * 90);
  const api = await WorkerProcess.startApi({ ...env, PORT: String(port), HOST: '127.0.0.1', RUN_WORKER: 'false', LOG_LEVEL: 'log' });
  const base = `http://127.0.0.1:${port}`;
  const steady = await WorkerProcess.start({ ...env, LOG_LEVEL: 'log' });
  let victim = await WorkerProcess.start({ ...env, LOG_LEVEL: 'log' });
  const pg = new Client({ connectionString: db.url });
  await pg.connect();

  const started = Date.now();
  const rss: Array<{ done: number; s: number; api: number; apiHeap: number; worker: number }> = [];
  const recoveries: number[] = [];
  let submitted = 0;
  let done = 0;

  /** The API's V8 heap in use (from /metrics), next to RSS: RSS holds on to memory a collected heap no longer uses. */
  const apiHeapMb = async () => {
    const text = await fetch(`${base}/metrics`).then(
      (r) => r.text(),
      () => '',
    );
    const bytes = Number(text.match(/^nodejs_heap_size_used_bytes (\S+)$/m)?.[1] ?? 0);
    return Math.round(bytes / 1048576);
  };
  const sample = async () => {
    const apiHeap = await apiHeapMb();
    rss.push({ done, s: round((Date.now() - started) / 1000), api: api.rssMb(), apiHeap, worker: steady.rssMb() });
  };
  const sampler = setInterval(() => void sample(), 10_000);

  /**
   * Kill the victim. Recovery time: from the kill until the last of the runs it was executing (those started
   * again afterwards) was started again by another worker. The replacement boots after that.
   */
  async function killOne(): Promise<void> {
    const running = (await pg.query(`SELECT id, attempts FROM runs WHERE status = 'running'`)).rows as Array<{
      id: string;
      attempts: number;
    }>;
    const before = new Map(running.map((r) => [r.id, r.attempts]));
    const killedAt = Date.now();
    victim.kill('SIGKILL');
    await victim.exited;
    const restartedAt = new Map<string, number>();
    for (;;) {
      const rows = (await pg.query(`SELECT id, status, attempts FROM runs WHERE id = ANY($1::uuid[])`, [running.map((r) => r.id)])).rows;
      for (const r of rows) if (r.attempts > before.get(r.id)! && !restartedAt.has(r.id)) restartedAt.set(r.id, Date.now());
      if (rows.every((r) => ['completed', 'failed', 'cancelled'].includes(r.status) || restartedAt.has(r.id))) break;
      if (Date.now() - killedAt > 120_000) throw new Error('runs of the killed worker were not taken over within 120 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    if (restartedAt.size) recoveries.push(Math.max(...restartedAt.values()) - killedAt);
    victim = await WorkerProcess.start({ ...env, LOG_LEVEL: 'log' });
  }
  let killing: Promise<void> | undefined;
  const killer = setInterval(() => {
    killing ??= killOne().finally(() => (killing = undefined));
  }, KILL_EVERY_MS);

  const submit = async (i: number) => {
    const res = await fetch(`${base}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: `weather for run-${i}` }),
    });
    if (res.status !== 202) throw new Error(`submit answered ${res.status}: ${await res.text()}`);
  };
  // keep IN_FLIGHT runs unfinished at a time
  while (done < RUNS) {
    const unfinished = Number((await pg.query(`SELECT count(*)::int AS n FROM runs WHERE status IN ('queued', 'running')`)).rows[0].n);
    done = Number((await pg.query(`SELECT count(*)::int AS n FROM runs WHERE status IN ('completed', 'failed', 'cancelled')`)).rows[0].n);
    const room = Math.min(IN_FLIGHT - unfinished, RUNS - submitted);
    for (let k = 0; k < room; k++) await submit(submitted++);
    if (submitted >= RUNS && unfinished === 0) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  clearInterval(killer);
  clearInterval(sampler);
  await killing;
  await sample();
  const elapsed = (Date.now() - started) / 1000;

  const statuses = (await pg.query(`SELECT status, count(*)::int AS n FROM runs GROUP BY status`)).rows;
  const completed = statuses.find((s) => s.status === 'completed')?.n ?? 0;
  const lost = RUNS - completed;
  const dupEffects = [...weather.hits.entries()].filter(([, n]) => n > 1).length;
  const badHistory = (
    await pg.query(`SELECT count(*)::int AS n FROM (SELECT session_id FROM messages GROUP BY session_id HAVING count(*) <> 2) x`)
  ).rows[0].n;
  const ledgerRows = (await pg.query(`SELECT count(*)::int AS n FROM tool_ledger`)).rows[0].n;
  const attempts = (await pg.query(`SELECT count(*)::int AS n FROM runs WHERE attempts > 1`)).rows[0].n;

  console.log(
    `\n## Soak: ${RUNS} runs, a worker killed every ${KILL_EVERY_MS / 1000} s (RUN_LOCK_MS=${LOCK_MS}, RUN_STALLED_CHECK_MS=${STALL_MS})\n`,
  );
  console.log('| measure | value | goal |\n|---|---|---|');
  console.log(`| runs completed | ${completed} of ${RUNS} (${JSON.stringify(statuses)}) | all |`);
  console.log(`| runs lost (not completed) | ${lost} | 0 |`);
  console.log(`| duplicated tool effects (a city fetched twice) | ${dupEffects} | 0 |`);
  console.log(`| sessions whose history is not exactly user + assistant | ${badHistory} | 0 |`);
  console.log(`| runs resumed after a kill (attempts > 1) | ${attempts} | — |`);
  console.log(`| tool ledger rows | ${ledgerRows} | = tool calls |`);
  console.log(`| worker kills | ${recoveries.length} | — |`);
  console.log(
    `| time to take over a killed worker's runs (p50 / max) | ${recoveries.length ? `${round(percentile(recoveries, 50) / 1000)} s / ${round(Math.max(...recoveries) / 1000)} s` : '—'} | ≤ lock + stall = ${(Number(LOCK_MS) + Number(STALL_MS)) / 1000} s |`,
  );
  console.log(
    `| steady worker and API still alive${HEAP_MB ? ` (old space capped at ${HEAP_MB} MB)` : ''} | ${steady.alive && api.alive} | true |`,
  );
  console.log(`| throughput | ${round(RUNS / elapsed)} runs/s over ${round(elapsed)} s | — |`);
  console.log('\nMemory (MB) over time:\n\n| runs done | s | API RSS | API heap used | worker RSS (never killed) |\n|---|---|---|---|---|');
  for (const r of rss) console.log(`| ${r.done} | ${r.s} | ${r.api} | ${r.apiHeap} | ${r.worker} |`);

  await pg.end();
  for (const p of [victim, steady, api]) await p.stop();
  const q = new Queue(RUNS_QUEUE, { connection: redisOptions(TEST_REDIS_URL), prefix });
  await q.obliterate({ force: true }).catch(() => undefined);
  await q.close();
  await model.stop();
  await weather.stop();
  await db.drop();
}

(process.env.SOAK_MODE === 'kill' ? main() : soakTurns()).catch((err: Error) => {
  console.error(err);
  process.exit(1);
});
