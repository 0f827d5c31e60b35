/**
 * `npm run bench:takeover` (not in CI): how long a crashed worker's run waits for another worker.
 *
 * Two worker processes (real BullMQ on the local Redis, real Postgres), the API in a process of its own, a
 * scripted model answering every call after TAKEOVER_MODEL_MS (3 s): a `get_weather` call, then an answer. Each
 * worker talks to a model server of its own, so the server that sees a run's first call names the worker that
 * holds it. TAKEOVER_KILLS times (20): submit a run, wait until its holder has asked the model, wait a random
 * 0–5 s more (the kill lands anywhere in the two model calls, at any phase of the lock and lease renewals),
 * SIGKILL the holder, and time from the kill to
 *   - lock gone:    the job's BullMQ lock key expired,
 *   - relocked:     another worker holds the job's lock (a stalled check moved the job back to wait, and the
 *                   other worker took it),
 *   - started:      the run row's `attempts` went up (another worker holds the session lease and starts it),
 *   - resumed call: the other worker's model server saw the run's next call.
 * "Takeover" is `started`. Every run must complete with its tool executed once. Prints a markdown table.
 */
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { Client } from 'pg';

import { redisOptions } from '../src/config/redis-options';
import { RUNS_QUEUE } from '../src/runs/run.job';
import { WeatherServer } from '../test/reliability/support/weather-server';
import { createTestDatabase, TEST_REDIS_URL, uniqueQueuePrefix } from '../test/support/infra';
import { type ChatRequest, ScriptedModelServer } from '../test/support/model-server';
import { WorkerProcess } from '../test/support/worker-process';
import { percentile, round } from './lib';

const KILLS = Number(process.env.TAKEOVER_KILLS ?? 20);
const MODEL_MS = Number(process.env.TAKEOVER_MODEL_MS ?? 3000);
const LOCK_MS = Number(process.env.RUN_LOCK_MS ?? 5000);
const STALL_MS = Number(process.env.RUN_STALLED_CHECK_MS ?? 2500);
const POLL_MS = 20;

/** A get_weather call for the run's own tag, then an answer quoting the tool. */
function responder(req: ChatRequest) {
  const last = req.messages[req.messages.length - 1];
  if (last?.role === 'tool') return { content: `done: ${String(last.content).slice(0, 30)}` };
  const tag = String(last?.content ?? '').match(/kill-\d+/)?.[0] ?? 'unknown';
  return { toolCalls: [{ name: 'get_weather', args: { city: tag } }] };
}

const askedFor = (model: ScriptedModelServer, tag: string) =>
  model.requests.filter((r) => r.messages.some((m) => m.role === 'user' && String(m.content).includes(tag))).length;

interface Kill {
  n: number;
  lockGone: number;
  relocked: number;
  started: number;
  resumedCall: number;
  toolRuns: number;
  status: string;
}

async function main(): Promise<void> {
  const weather = new WeatherServer();
  await weather.start();
  const models = [new ScriptedModelServer(), new ScriptedModelServer()];
  for (const m of models) {
    await m.start();
    m.setResponder(responder);
    m.latencyMs = MODEL_MS;
  }
  const db = await createTestDatabase('takeover');
  const prefix = uniqueQueuePrefix('takeover');
  const env = {
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    LLM_MODEL: 'takeover',
    LLM_MAX_RETRIES: '0',
    LLM_CACHE: 'false',
    DEFAULT_AGENT: 'assistant',
    OPENWEATHER_API_KEY: 'bench',
    OPENWEATHER_BASE_URL: weather.baseUrl,
    TOOLS_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
    RUN_LOCK_MS: String(LOCK_MS),
    RUN_STALLED_CHECK_MS: String(STALL_MS),
    LOG_LEVEL: 'log',
  };
  const port = 3900 + Math.floor(Math.random() * 90);
  const api = await WorkerProcess.startApi({
    ...env,
    LLM_BASE_URL: models[0].baseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    RUN_WORKER: 'false',
  });
  const startWorker = (slot: number) => WorkerProcess.start({ ...env, LLM_BASE_URL: models[slot].baseUrl });
  const workers = [await startWorker(0), await startWorker(1)];
  const pg = new Client({ connectionString: db.url });
  await pg.connect();
  const redis = new IORedis(TEST_REDIS_URL);
  const key = (id: string) => `${prefix}:${RUNS_QUEUE}:${id}`;
  const row = async (id: string) => (await pg.query(`SELECT status, attempts FROM runs WHERE id = $1`, [id])).rows[0];

  const kills: Kill[] = [];
  try {
    for (let n = 1; kills.length < KILLS; n++) {
      const tag = `kill-${n}`;
      const res = await fetch(`http://127.0.0.1:${port}/v1/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: `weather for ${tag}` }),
      });
      const { job_id: id } = (await res.json()) as { job_id: string };
      while (!models.some((m) => askedFor(m, tag) > 0)) await sleep(POLL_MS);
      const holder = models.findIndex((m) => askedFor(m, tag) > 0);
      await sleep(Math.random() * 5000);
      if ((await row(id)).status !== 'running') throw new Error(`${tag} was not running at its kill`);
      const token = await redis.get(`${key(id)}:lock`);
      const killedAt = Date.now();
      workers[holder].kill('SIGKILL');
      const at: Partial<Record<'lockGone' | 'relocked' | 'started' | 'resumedCall', number>> = {};
      const mark = (name: keyof typeof at, yes: boolean) => {
        if (yes && at[name] === undefined) at[name] = Date.now() - killedAt;
      };
      while (Object.keys(at).length < 4) {
        if (Date.now() - killedAt > 60_000) throw new Error(`${tag}: not taken over within 60 s (${JSON.stringify(at)})`);
        const lock = await redis.get(`${key(id)}:lock`);
        mark('lockGone', lock !== token);
        mark('relocked', lock !== null && lock !== token);
        mark('started', (await row(id)).attempts >= 2);
        mark('resumedCall', askedFor(models[1 - holder], tag) > 0);
        await sleep(POLL_MS);
      }
      let status = (await row(id)).status;
      for (const until = Date.now() + 60_000; !['completed', 'failed', 'cancelled'].includes(status) && Date.now() < until;) {
        await sleep(100);
        status = (await row(id)).status;
      }
      await workers[holder].exited;
      workers[holder] = await startWorker(holder);
      const k: Kill = { n: kills.length + 1, ...(at as Required<typeof at>), toolRuns: weather.count(tag), status };
      kills.push(k);
      console.error(`kill ${k.n}: started ${k.started} ms (lock gone ${k.lockGone}, relocked ${k.relocked}), ${status}`);
    }
    report(kills);
  } catch (err) {
    if (!api.alive) console.error(`the API process exited:\n${api.logs.slice(-4000)}`);
    throw err;
  } finally {
    await pg.end();
    redis.disconnect();
    for (const p of [...workers, api]) await p.stop();
    const q = new Queue(RUNS_QUEUE, { connection: redisOptions(TEST_REDIS_URL), prefix });
    await q.obliterate({ force: true }).catch(() => undefined);
    await q.close();
    for (const m of models) await m.stop();
    await weather.stop();
    await db.drop();
  }
}

function report(kills: Kill[]): void {
  const s = (ms: number) => round(ms / 1000, 2);
  const bound = (LOCK_MS + STALL_MS) / 1000;
  console.log(
    `\n## Takeover after SIGKILL: ${KILLS} kills (RUN_LOCK_MS=${LOCK_MS}, RUN_STALLED_CHECK_MS=${STALL_MS}, model ${MODEL_MS} ms per call)\n`,
  );
  console.log(
    '| kill # | takeover s | lock gone s | relocked s | resumed model call s | tool runs | status |\n|---|---|---|---|---|---|---|',
  );
  for (const k of kills) {
    console.log(`| ${k.n} | ${s(k.started)} | ${s(k.lockGone)} | ${s(k.relocked)} | ${s(k.resumedCall)} | ${k.toolRuns} | ${k.status} |`);
  }
  const took = kills.map((k) => k.started);
  console.log(
    `\ntakeover: min ${s(Math.min(...took))} s, median ${s(percentile(took, 50))} s, max ${s(Math.max(...took))} s ` +
      `(bound RUN_LOCK_MS + RUN_STALLED_CHECK_MS = ${bound} s; over it: ${took.filter((t) => t > bound * 1000).length}); ` +
      `completed ${kills.filter((k) => k.status === 'completed').length}/${KILLS}, tool run once ${kills.filter((k) => k.toolRuns === 1).length}/${KILLS}`,
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

main().catch((err: Error) => {
  console.error(err);
  process.exit(1);
});
