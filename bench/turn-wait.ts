/**
 * `npm run bench:turn-wait` (not in CI): how soon a busy session's next turn starts once the turn ahead ends,
 * and what the waiting turn costs the database meanwhile.
 *
 * The service in this process (API and worker), real Postgres, a scripted model answering after
 * TURN_WAIT_MODEL_MS (1500 ms). For each queue (BullMQ on the local Redis; the in-process one without Redis) and
 * each path (`jobs`: two `POST /v1/jobs`, the second parked by its queue; `chat`: two `POST /v1/chat` at once, the
 * second waiting in its request), TURN_WAIT_PAIRS times (5): two turns on one session back to back, then
 *   - gap:     from the first's end (`finished_at`) to the second's start (`started_at`), both the database's clock;
 *   - queries: transactions per second on the database while the first waits for its model, minus the same
 *              window with no second turn (so: what the waiting turn costs), from `pg_stat_database`.
 * Prints a markdown table (median and max of the gaps, mean of the queries per second).
 */
import { Client } from 'pg';

import { createTestDatabase, TEST_REDIS_URL, uniqueQueuePrefix } from '../test/support/infra';
import { ScriptedModelServer } from '../test/support/model-server';
import { http, type RunningApp, startApp, waitFor } from '../test/support/test-app';
import { percentile, round } from './lib';

const PAIRS = Number(process.env.TURN_WAIT_PAIRS ?? 5);
const MODEL_MS = Number(process.env.TURN_WAIT_MODEL_MS ?? 1500);
/** the window in which transactions are counted, starting once the first turn has asked the model */
const WINDOW_MS = Math.floor(MODEL_MS * 0.6);

type Path = 'jobs' | 'chat';

async function transactions(db: Client): Promise<number> {
  await db.query('SELECT pg_stat_clear_snapshot()');
  const rows = await db.query<{ n: string }>(
    'SELECT (xact_commit + xact_rollback)::text AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(rows.rows[0].n);
}

/** Transactions per second on the database while the first turn of `start` waits for its model. */
async function duringModelCall(
  model: ScriptedModelServer,
  db: Client,
  start: () => Promise<unknown>,
): Promise<{ tps: number; done: Promise<unknown> }> {
  const asked = model.requests.length;
  const done = start();
  await waitFor(async () => (model.requests.length > asked ? true : undefined), 30_000, 5);
  await new Promise((r) => setTimeout(r, 100)); // the second turn is parked / waiting by now
  const before = await transactions(db);
  await new Promise((r) => setTimeout(r, WINDOW_MS));
  // statistics are flushed by each backend about once a second: wait for them before the second read
  await new Promise((r) => setTimeout(r, 1100));
  const after = await transactions(db);
  return { tps: ((after - before) * 1000) / (WINDOW_MS + 1100), done };
}

async function turn(app: RunningApp, path: Path, message: string, sessionId?: string): Promise<{ id: string; session: string }> {
  const body = { message, ...(sessionId ? { session_id: sessionId } : {}) };
  const res = await http(app.url, 'POST', path === 'jobs' ? '/v1/jobs' : '/v1/chat', body);
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  const b = res.body as { job_id?: string; run_id?: string; session_id: string };
  return { id: b.job_id ?? b.run_id ?? '', session: b.session_id };
}

async function ended(db: Client, session: string, n: number) {
  return waitFor(async () => {
    const rows = (
      await db.query(`SELECT status, started_at, finished_at FROM runs WHERE session_id = $1 ORDER BY created_at, id`, [session])
    ).rows as Array<{ status: string; started_at: Date; finished_at: Date | null }>;
    return rows.length === n && rows.every((r) => r.finished_at) ? rows : undefined;
  }, 60_000);
}

async function measure(queue: 'bullmq' | 'inline', path: Path) {
  const model = new ScriptedModelServer();
  await model.start();
  model.setResponder(() => ({ content: 'ok' }));
  const dbInfo = await createTestDatabase(`turn_wait_${queue}_${path}`);
  const app = await startApp({
    DATABASE_URL: dbInfo.url,
    ...(queue === 'bullmq' ? { REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: uniqueQueuePrefix('turn_wait') } : {}),
    LLM_BASE_URL: model.baseUrl,
    LLM_MODEL: 'm',
    LLM_CACHE: 'false',
    DEFAULT_AGENT: 'react',
  });
  const db = new Client({ connectionString: dbInfo.url });
  await db.connect();
  const gaps: number[] = [];
  const waiterTps: number[] = [];
  try {
    // a first session, so that the service's one-time work (graphs, statements) is done before measuring
    model.latencyMs = 0;
    const warm = await turn(app, 'chat', 'warm up');
    await ended(db, warm.session, 1);
    model.latencyMs = MODEL_MS;
    for (let i = 0; i < PAIRS; i++) {
      // alone: what one running turn costs
      const alone = await duringModelCall(model, db, () => turn(app, path, `alone ${i}`));
      const { session } = (await alone.done) as { session: string };
      await ended(db, session, 1);
      // then two turns on the same (idle) session, the second sent while the first runs
      let second: Promise<unknown> | undefined;
      const pair = await duringModelCall(model, db, async () => {
        const first = turn(app, path, `first ${i}`, session);
        if (path === 'jobs') await first;
        else await new Promise((r) => setTimeout(r, 50)); // accepted and running before the second comes
        second = turn(app, path, `second ${i}`, session);
        return Promise.all([first, second]);
      });
      await pair.done;
      const rows = await ended(db, session, 3);
      const [a, b] = rows.slice(-2);
      gaps.push(b.started_at.getTime() - a.finished_at!.getTime());
      waiterTps.push(pair.tps - alone.tps);
    }
  } finally {
    await db.end();
    await app.close();
    await model.stop();
    await dbInfo.drop();
  }
  const mean = waiterTps.reduce((s, x) => s + x, 0) / waiterTps.length;
  return { queue, path, median: percentile(gaps, 50), max: Math.max(...gaps), waiterTps: mean };
}

async function main(): Promise<void> {
  const rows = [];
  for (const queue of ['bullmq', 'inline'] as const) for (const path of ['jobs', 'chat'] as const) rows.push(await measure(queue, path));
  console.log(`| queue | path | gap median (ms) | gap max (ms) | waiting turn's queries/s |`);
  console.log(`|---|---|---|---|---|`);
  for (const r of rows) console.log(`| ${r.queue} | ${r.path} | ${round(r.median)} | ${round(r.max)} | ${round(r.waiterTps)} |`);
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
