/**
 * `npm run bench`: the foundation's numbers against the scripted model server, on the real local Postgres
 * (and Redis for queued runs). Prints a markdown table; paste the latest into the README.
 * `BENCH_ONLY=turn,queued,…` picks sections; `npm run bench -- --breakdown` prints where a react turn's time goes.
 */
import { Client } from 'pg';

import { createTestDatabase, TEST_REDIS_URL, uniqueQueuePrefix } from '../test/support/infra';
import { ScriptedModelServer } from '../test/support/model-server';
import { startApp } from '../test/support/test-app';
import { floorQueued } from './floor.bench';
import { cpuSecondsOf, get, percentile, post, round, startModelProcess, startWorkerProcess, table } from './lib';
import { startApi } from './turn.bench';

const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const PICKUPS = Number(process.env.BENCH_PICKUPS ?? 200);
const QUEUED = Number(process.env.BENCH_QUEUED ?? 1000);

/** Every turn: the model asks for the calculator once, then answers with the tool's result. */
function toolThenAnswer(model: ScriptedModelServer): void {
  model.setResponder((req) => {
    const last = req.messages[req.messages.length - 1];
    if (last?.role === 'tool') return { content: `The result is ${last.content}.` };
    return { toolCalls: [{ name: 'calculator', args: { expression: '12*7' } }] };
  });
}

async function overhead(model: ScriptedModelServer, dbUrl: string) {
  const app = await startApp({
    DATABASE_URL: dbUrl,
    LLM_BASE_URL: model.baseUrl,
    LLM_MODEL: 'bench',
    LLM_MAX_RETRIES: '0',
    LOG_LEVEL: 'error',
    LLM_CACHE: 'false',
  });
  toolThenAnswer(model);
  model.latencyMs = 0;
  const overheads: number[] = [];
  const totals: number[] = [];
  try {
    for (let i = 0; i < 20; i++) await post(app.url, '/v1/chat', { message: 'What is 12 times 7?' }); // warm-up
    for (let i = 0; i < TURNS; i++) {
      const t0 = performance.now();
      const r = await post(app.url, '/v1/chat', { message: 'What is 12 times 7?' });
      const total = performance.now() - t0;
      if (r.llm_calls !== 2 || r.error) throw new Error(`unexpected turn: ${JSON.stringify(r)}`);
      const trace = await get(app.url, `/v1/sessions/${r.session_id}/runs/${r.run_id}/trace`);
      const modelMs = trace.model_calls.reduce((s: number, c: { ms: number }) => s + c.ms, 0);
      totals.push(total);
      overheads.push(total - modelMs);
    }
  } finally {
    await app.close();
  }
  return { overheads, totals };
}

/**
 * `count` queued runs through the shipped API and `workers` worker processes. `perSecond`: submitted at that
 * rate (a producer over time, open loop: 5 every 100 ms at 50/s) instead of all at once (50 at a time, each
 * group as soon as the previous is accepted).
 */
async function queued(dbUrl: string, latencyMs: number, count: number, workers: number, concurrency: number, perSecond?: number) {
  const model = await startModelProcess(latencyMs);
  const prefix = uniqueQueuePrefix('bench');
  const env = {
    DATABASE_URL: dbUrl,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    LLM_BASE_URL: model.url,
    LLM_MODEL: 'bench',
    LLM_MAX_RETRIES: '0',
    LOG_LEVEL: 'error',
    WORKER_CONCURRENCY: String(concurrency),
    LLM_CACHE: 'false',
  };
  // the shipped command in a process of its own: the API's accept burst does not delay the model server's replies
  const api = await startApi({ ...env, RUN_WORKER: 'false' });
  const procs = Array.from({ length: workers }, () => startWorkerProcess(env));
  try {
    await new Promise((r) => setTimeout(r, 3000)); // workers boot
    // warm-up: every slot runs a job (the workers' first concurrent runs open their pools' connections)
    const warm = await Promise.all(
      Array.from({ length: workers * concurrency * 2 }, () => post(api.url, '/v1/jobs', { message: 'warm up' })),
    );
    await waitDone(
      api.url,
      warm.map((w) => w.job_id),
    );
    const cpu0 = procs.map((p) => cpuSecondsOf(p.pid!));
    const api0 = cpuSecondsOf(api.pid);
    const model0 = cpuSecondsOf(model.pid);
    const main0 = process.cpuUsage();
    const t0 = Date.now();
    const ids: string[] = [];
    const submit = (n: number) =>
      Promise.all(Array.from({ length: n }, () => post(api.url, '/v1/jobs', { message: 'What is 12 times 7?' })));
    if (perSecond) {
      const each = perSecond / 10;
      const groups: Promise<Array<{ job_id: string }>>[] = [];
      for (let i = 0; i < count; i += each) {
        await new Promise((r) => setTimeout(r, t0 + (i / perSecond) * 1000 - Date.now()));
        groups.push(submit(Math.min(each, count - i)));
      }
      for (const g of await Promise.all(groups)) ids.push(...g.map((b) => b.job_id));
    } else {
      for (let i = 0; i < count; i += 50) ids.push(...(await submit(Math.min(50, count - i))).map((b) => b.job_id));
    }
    const lastFinished = await waitDoneInDb(dbUrl, ids, 600_000);
    const seconds = (lastFinished - t0) / 1000;
    const workerCpu = procs.reduce((s, p, i) => s + cpuSecondsOf(p.pid!) - cpu0[i], 0);
    const apiCpu = cpuSecondsOf(api.pid) - api0;
    const modelCpu = cpuSecondsOf(model.pid) - model0;
    const mainUsage = process.cpuUsage(main0);
    const counts = await statusCounts(dbUrl, ids);
    const split = await runTimes(dbUrl, ids);
    return {
      seconds,
      rate: count / seconds,
      counts,
      split,
      workerCpu,
      apiCpu,
      modelCpu,
      mainCpu: (mainUsage.user + mainUsage.system) / 1e6,
    };
  } finally {
    for (const p of procs) p.kill('SIGTERM');
    await api.stop();
    await model.stop();
  }
}

async function pickup(model: ScriptedModelServer, dbUrl: string) {
  const prefix = uniqueQueuePrefix('pickup');
  const app = await startApp({
    DATABASE_URL: dbUrl,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    LLM_BASE_URL: model.baseUrl,
    LLM_MODEL: 'bench',
    LOG_LEVEL: 'error',
    LLM_CACHE: 'false',
  });
  toolThenAnswer(model);
  model.latencyMs = 0;
  const ids: string[] = [];
  try {
    for (let i = 0; i < 10; i++) await waitDone(app.url, [(await post(app.url, '/v1/jobs', { message: 'warm' })).job_id]);
    for (let i = 0; i < PICKUPS; i++) {
      const j = await post(app.url, '/v1/jobs', { message: 'What is 12 times 7?' });
      ids.push(j.job_id);
      await waitDone(app.url, [j.job_id]);
    }
  } finally {
    await app.close();
  }
  const c = new Client({ connectionString: dbUrl });
  await c.connect();
  const { rows } = await c.query(`SELECT extract(epoch FROM (started_at - created_at)) * 1000 AS ms FROM runs WHERE id = ANY($1)`, [ids]);
  await c.end();
  return rows.map((r: { ms: string }) => Number(r.ms));
}

async function waitDone(base: string, ids: string[], timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pending = new Set(ids);
  while (pending.size) {
    if (Date.now() > deadline) throw new Error(`${pending.size} runs not finished in time`);
    for (const id of [...pending].slice(0, 200)) {
      const j = await get(base, `/v1/jobs/${id}`);
      if (['completed', 'failed', 'cancelled'].includes(j.status)) pending.delete(id);
    }
    if (pending.size) await new Promise((r) => setTimeout(r, ids.length > 1 ? 200 : 2));
  }
}

/**
 * Many runs: one query per poll instead of one HTTP request per run (the bench must not load the API), and
 * only over the runs not seen finished yet (`id = ANY` of all 1000 ids costs Postgres ~1 ms of CPU). A poll
 * every 250 ms: the end of the measurement is the last run's `finished_at`, read once they are all done, not
 * the poll that saw it — the bench takes no CPU from the 2-core machine it measures for precision.
 * Returns that `finished_at` (ms since the epoch; Postgres and the bench share the machine's clock).
 */
async function waitDoneInDb(dbUrl: string, ids: string[], timeoutMs: number): Promise<number> {
  const c = new Client({ connectionString: dbUrl });
  await c.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    const pending = new Set(ids);
    for (;;) {
      const { rows } = await c.query(`SELECT id FROM runs WHERE id = ANY($1) AND status IN ('completed', 'failed', 'cancelled')`, [
        [...pending],
      ]);
      for (const r of rows as Array<{ id: string }>) pending.delete(r.id);
      if (pending.size === 0) {
        const last = await c.query(`SELECT extract(epoch FROM max(finished_at)) * 1000 AS at FROM runs WHERE id = ANY($1)`, [ids]);
        return Number(last.rows[0].at);
      }
      if (Date.now() > deadline) throw new Error(`${pending.size} runs not finished in time`);
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    await c.end();
  }
}

/** p50 of a run's execution (started → finished) and of its wait in the queue (created → started), ms */
async function runTimes(dbUrl: string, ids: string[]): Promise<{ execP50: number; waitP50: number; graphP50: number; modelP50: number }> {
  const c = new Client({ connectionString: dbUrl });
  await c.connect();
  const { rows } = await c.query(
    `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at)) * 1000 AS exec,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - created_at)) * 1000 AS wait,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY (SELECT sum((t->>'ms')::float) FROM jsonb_array_elements(trace->'node_timings') t)) AS graph,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY (SELECT sum((c->>'ms')::float) FROM jsonb_array_elements(trace->'model_calls') c)) AS model
       FROM runs WHERE id = ANY($1)`,
    [ids],
  );
  await c.end();
  const r = rows[0];
  return { execP50: Number(r.exec), waitP50: Number(r.wait), graphP50: Number(r.graph), modelP50: Number(r.model) };
}

async function statusCounts(dbUrl: string, ids: string[]): Promise<Record<string, number>> {
  const c = new Client({ connectionString: dbUrl });
  await c.connect();
  const { rows } = await c.query(`SELECT status, count(*)::int AS n FROM runs WHERE id = ANY($1) GROUP BY status`, [ids]);
  await c.end();
  return Object.fromEntries(rows.map((r: { status: string; n: number }) => [r.status, r.n]));
}

async function main(): Promise<void> {
  const model = new ScriptedModelServer();
  await model.start();
  const db = await createTestDatabase('bench');
  const rows: Array<[string, string, string]> = [];
  const targetRows: string[][] = [];
  let breakdown = '';
  try {
    const breakdownOnly = process.argv.includes('--breakdown');
    const only = process.env.BENCH_ONLY?.split(',') ?? (breakdownOnly ? [] : undefined);
    const want = (section: string) => !only || only.includes(section);
    if (breakdownOnly) {
      const { benchBreakdown } = await import('./targets.bench');
      breakdown = await benchBreakdown(db.url);
    }
    if (want('turn')) {
      const { benchTargets } = await import('./targets.bench');
      targetRows.push(...(await benchTargets(db.url)));
      targetRows.push([
        'side by side with the reference server: sequential latency / throughput at 10 clients',
        'see `npm run bench:compare`',
        '≥ 20× lower / ≥ 5×',
        '`npm run bench:compare`',
      ]);
    }
    if (want('floor') || want('turn')) {
      const { benchFloor } = await import('./floor.bench');
      targetRows.push(...(await benchFloor(db.url)));
    }
    if (want('turn')) {
      const { benchRatios } = await import('./ratio.bench');
      targetRows.push(...(await benchRatios(db.url)));
    }
    if (want('overhead')) {
      const o = await overhead(model, db.url);
      rows.push([
        `react turn, 1 tool call: overhead p50 (${TURNS} sequential turns)`,
        `${round(percentile(o.overheads, 50))} ms`,
        '≤ 25 ms',
      ]);
      rows.push(['react turn, 1 tool call: overhead p99', `${round(percentile(o.overheads, 99))} ms`, '≤ 80 ms']);
      rows.push(['react turn, 1 tool call: total latency p50 (model at 0 ms)', `${round(percentile(o.totals, 50))} ms`, '—']);
    }
    if (want('pickup')) {
      const p = await pickup(model, db.url);
      rows.push([`queued run pickup (enqueue → start) p50 (${PICKUPS} runs, BullMQ)`, `${round(percentile(p, 50))} ms`, '≤ 15 ms']);
      rows.push(['queued run pickup p99', `${round(percentile(p, 99))} ms`, '—']);
    }
    if (want('queued')) {
      const workers = Number(process.env.BENCH_QUEUED_WORKERS ?? 2);
      const q = await queued(db.url, 200, QUEUED, workers, 20 / workers);
      const lost = QUEUED - (q.counts.completed ?? 0);
      rows.push([
        `${QUEUED} queued runs, model 200 ms ×2, concurrency 20 (${workers} workers × ${20 / workers})`,
        `${round(q.rate)} runs/s (${round((q.rate / 50) * 100, 0)} % of 50)`,
        '≥ 45 runs/s (90 %)',
      ]);
      rows.push(['… runs not completed / left running', `${lost} / ${q.counts.running ?? 0}`, '0 / 0']);
      const sustained = await queued(db.url, 200, QUEUED, workers, 20 / workers, 50);
      rows.push([
        `… the same ${QUEUED} runs submitted over time, 50 a second (5 every 100 ms): first submission → last run finished`,
        `${round(sustained.rate)} runs/s (${round((sustained.rate / 50) * 100, 0)} % of 50); not completed ${QUEUED - (sustained.counts.completed ?? 0)}`,
        'report (the rate caps it at 50)',
      ]);
      const floorModel = await startModelProcess(200);
      const floor = await floorQueued(floorModel.url, QUEUED, workers, 20 / workers).finally(() => floorModel.stop());
      rows.push([
        '… floor: the same jobs on a bare BullMQ worker running the bare graph with the official PostgresSaver (checkpoint per step)',
        `${round(floor.rate)} runs/s (${round((floor.rate / 50) * 100, 0)} % of 50); a run ${round(floor.execP50)} ms, ${round(floor.cpuMsPerRun)} ms of worker CPU`,
        'reference for the rows above and below',
      ]);
      rows.push([
        '… a run, p50: graph (its steps) / model calls inside it (client side)',
        `${round(q.split.graphP50)} / ${round(q.split.modelP50)} ms`,
        'report',
      ]);
      rows.push([
        '… a run: started → finished p50 / waiting in the queue p50; CPU per run: workers / API',
        `${round(q.split.execP50)} / ${round(q.split.waitP50)} ms; ${round((q.workerCpu / QUEUED) * 1000)} / ${round((q.apiCpu / QUEUED) * 1000)} ms`,
        'report',
      ]);
    }
    if (want('agents')) {
      const { benchAgentCalls, benchParser } = await import('./agents.bench');
      rows.push(...(await benchAgentCalls()), ...benchParser());
    }
    if (want('contract-qa')) {
      const { benchContractQa } = await import('./contract-qa.bench');
      rows.push(...(await benchContractQa()));
    }
    if (want('plan-execute')) {
      const { benchPlanExecute } = await import('./plan-execute.bench');
      rows.push(...(await benchPlanExecute()));
    }
    if (want('memory')) {
      const { benchMemory } = await import('./memory.bench');
      rows.push(...(await benchMemory()));
    }
    if (want('store')) {
      const { benchStoreRows } = await import('./store-search');
      rows.push(...(await benchStoreRows(Number(process.env.BENCH_STORE_ITEMS ?? 2000))));
    }
    if (want('matrix')) {
      const { benchAgentMatrix } = await import('./agent-matrix');
      rows.push(...(await benchAgentMatrix()));
    }
    if (want('peak')) {
      const peak = await queued(db.url, 0, QUEUED, 2, 20);
      rows.push([`peak: ${QUEUED} queued runs, model 0 ms, 2 workers × 20`, `${round(peak.rate)} runs/s`, 'report']);
      rows.push([
        '… CPU used (workers / API / model server / client)',
        `${round(peak.workerCpu)} s / ${round(peak.apiCpu)} s / ${round(peak.modelCpu)} s / ${round(peak.mainCpu)} s over ${round(peak.seconds)} s`,
        'report',
      ]);
      rows.push(['… runs not completed / left running', `${QUEUED - (peak.counts.completed ?? 0)} / ${peak.counts.running ?? 0}`, '0 / 0']);
    }
  } finally {
    await model.stop();
    await db.drop();
  }
  if (breakdown) process.stdout.write(`\n${breakdown}\n`);
  if (targetRows.length) process.stdout.write(`\n${table(targetRows, ['measure', 'result', 'target', 'command'])}\n`);
  if (rows.length) process.stdout.write(`\n${table(rows)}\n`);
  process.stdout.write(
    `\nmachine: ${require('node:os').cpus().length} cores, Node ${process.version}, Postgres ${await pgVersion()}, load average ${require('node:os')
      .loadavg()
      .map((l: number) => l.toFixed(1))
      .join(' ')}\n`,
  );
}

async function pgVersion(): Promise<string> {
  const { TEST_PG_URL } = await import('../test/support/infra');
  const c = new Client({ connectionString: TEST_PG_URL });
  await c.connect();
  const { rows } = await c.query('SHOW server_version');
  await c.end();
  return rows[0].server_version;
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench failed: ${err.stack}\n`);
    process.exit(1);
  },
);
