import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Client } from '@langchain/langgraph-sdk';
import { Queue } from 'bullmq';
import { Client as PgClient } from 'pg';

import { redisOptions } from '../../src/config/redis-options';
import { RUNS_QUEUE } from '../../src/runs/run.job';
import { buildOnce } from '../support/build-once';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase, uniqueQueuePrefix } from '../support/infra';
import { freePort, type LogLine, MainProcess, processAlive } from '../support/main-process';
import { ScriptedModelServer } from '../support/model-server';
import { SCRIPTED_LLM } from '../support/service-fixture';
import { waitFor } from '../support/test-app';

const listening = (l: LogLine) => /^listening on /.test(l.msg ?? '');
/** a request's completion line (pino-http), by method and path */
const served = (method: string, url: string) => (l: LogLine) => l.req?.method === method && l.req?.url === url && l.res !== undefined;

/** Each request on a connection of its own, so Node's cluster hands it to the next process in turn. */
const get = (base: string, p: string) => fetch(`${base}${p}`, { headers: { connection: 'close' } });

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of it) out.push(e);
  return out;
}

/** The pids that served `count` GET `p` requests, made now, one connection each. */
async function servingPids(main: MainProcess, p: string, count: number): Promise<number[]> {
  const from = main.lines.length;
  for (let i = 0; i < count; i++) expect((await get(main.url, p)).status).toBe(200);
  const lines = await waitFor(async () => {
    const found = main.lines.slice(from).filter(served('GET', p));
    return found.length === count ? found : undefined;
  });
  return lines.map((l) => l.pid);
}

/**
 * Starts `scenario` now, for the test that awaits it later: a scenario that mostly waits (start-ups, restart
 * delays) runs beside the others. A failed expectation in it rejects the promise, which fails that test.
 */
function startEarly<T>(scenario: () => Promise<T>): Promise<T> {
  const started = scenario();
  started.catch(() => undefined); // reported by the test that awaits it, not as an unhandled rejection
  return started;
}

let embedded: Promise<void>;

// the shipped build, once for the file; the embedded-database process starts at once, beside the cluster below
beforeAll(() => {
  buildOnce();
  embedded = startEarly(embeddedRunsOneProcess);
}, 180_000);

/** `node dist/main.js` with WEB_CONCURRENCY=2 on the local Postgres and Redis: node:cluster workers on one port. */
describe('WEB_CONCURRENCY=2: the shipped command as two API processes', () => {
  const model = new ScriptedModelServer();
  let db: TestDatabase;
  let prefix: string;
  let env: Record<string, string>;
  let main: MainProcess;
  /** the start-up failure scenario (last test), started once the cluster listens: its restart delays pass meanwhile */
  let brokenStartUp: Promise<void>;
  let brokenDb: TestDatabase | undefined;
  let broken: MainProcess | undefined;

  beforeAll(async () => {
    await model.start();
    db = await createTestDatabase('web_concurrency');
    prefix = uniqueQueuePrefix('web_concurrency');
    env = { ...SCRIPTED_LLM, LLM_BASE_URL: model.baseUrl, DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix };
    main = new MainProcess(await freePort(), { ...env, WEB_CONCURRENCY: '2' });
    await waitFor(async () => (main.lines.filter(listening).length === 2 ? true : undefined), 90_000);
    brokenStartUp = startEarly(workersKeepDyingAtStartUp);
  }, 120_000);

  afterAll(async () => {
    if (main?.child.exitCode === null) main.child.kill('SIGKILL');
    if (broken?.child.exitCode === null) broken.child.kill('SIGKILL');
    await brokenStartUp?.catch(() => undefined);
    await model.stop();
    const q = new Queue(RUNS_QUEUE, { connection: redisOptions(TEST_REDIS_URL), prefix });
    await q.obliterate({ force: true }).catch(() => undefined);
    await q.close();
    await db?.drop();
    await brokenDb?.drop();
  });

  /**
   * `node dist/main.js` with WEB_CONCURRENCY=2 whose configuration parses (in the primary) but whose graph file is
   * missing: each worker fails as it starts. On a database and queue of its own, as it runs beside the cluster.
   */
  async function workersKeepDyingAtStartUp(): Promise<void> {
    brokenDb = await createTestDatabase('web_concurrency_broken');
    const own = { DATABASE_URL: brokenDb.url, QUEUE_PREFIX: uniqueQueuePrefix('web_concurrency_broken') };
    broken = new MainProcess(await freePort(), { ...env, ...own, WEB_CONCURRENCY: '2', LANGGRAPH_CONFIG: '/nonexistent/langgraph.json' });
    await expect(broken.exited).resolves.toEqual({ code: 1, signal: null });
    const cluster = broken.lines.filter((l) => l.context === 'Cluster');
    const delays = cluster.filter((l) => /died \(exit code 1\)/.test(l.msg ?? '')).map((l) => Number(/in (\d+) ms/.exec(l.msg!)![1]));
    expect(delays).toEqual([1000, 2000, 4000, 8000]);
    // the fatal line, then (when the other worker was starting again at that moment) the stop of the live one, then the exit
    const fatal = cluster.findIndex((l) => l.level === 'fatal');
    expect(cluster[fatal]).toMatchObject({ msg: '5 API processes in a row died before listening: giving up' });
    expect(cluster.slice(fatal + 1, -1).map((l) => l.msg)).toEqual(
      cluster.length - fatal === 3 ? ['SIGTERM: stopping 1 API processes'] : [],
    );
    expect(cluster.at(-1)!.msg).toBe('all API processes stopped: exit 1');
    expect(broken.lines.some(listening)).toBe(false);
  }

  it('serves the port from two child processes, each log line with its pid; the primary ran the migrations', async () => {
    const starting = main.lines.find((l) => l.context === 'Cluster' && /^starting 2 API processes/.test(l.msg ?? ''));
    expect(starting?.pid).toBe(main.pid);
    const ready = main.lines.filter(listening);
    expect(ready.map((l) => l.msg)).toEqual([expect.stringContaining('processes: 2,'), expect.stringContaining('processes: 2,')]);
    const workers = ready.map((l) => l.pid).sort();
    expect(main.children().sort()).toEqual(workers);
    for (const pid of workers) expect(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toContain('DB_MIGRATIONS_RUN=false');

    expect(new Set(await servingPids(main, '/v1/agents', 6))).toEqual(new Set(workers));
  });

  it('a LangGraph API background run is streamed and joined through other connections, whichever process serves them', async () => {
    const client = new Client({ apiUrl: main.url, defaultHeaders: { connection: 'close' }, callerOptions: { maxRetries: 0 } });
    const servedBy: Array<{ create: number; stream: number; join: number }> = [];
    for (const n of [2, 3, 4]) {
      model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: `6 * ${n}` } }] }, { content: `6 times ${n} is ${6 * n}.` });
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, 'react', {
        input: { messages: [{ role: 'user', content: `What is 6 times ${n}?` }] },
        streamMode: ['values'],
      });
      const events = await collect(client.runs.joinStream(thread.thread_id, run.run_id));
      const last = events.filter((e) => e.event === 'values').at(-1)?.data as { messages: Array<{ content: string }> };
      expect(last.messages.at(-1)!.content).toBe(`6 times ${n} is ${6 * n}.`);
      const joined = (await client.runs.join(thread.thread_id, run.run_id)) as { messages: Array<{ content: string }> };
      expect(joined.messages.at(-1)!.content).toBe(`6 times ${n} is ${6 * n}.`);
      expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe('success');

      const runPath = `/threads/${thread.thread_id}/runs`;
      const pidOf = (method: string, url: string) => main.waitForLine(served(method, url)).then((l) => l.pid);
      servedBy.push({
        create: await pidOf('POST', runPath),
        stream: await pidOf('GET', `${runPath}/${run.run_id}/stream`),
        join: await pidOf('GET', `${runPath}/${run.run_id}/join`),
      });
    }
    expect(model.unexpected).toEqual([]);
    // the proof needs a run followed from a process that did not accept it (Node hands connections in turn)
    expect(servedBy.some((s) => s.stream !== s.create || s.join !== s.create)).toBe(true);
  });

  it('/metrics describes both processes, whichever of them takes the scrape', async () => {
    // the three runs above were executed by the two processes' workers, split unevenly (3 is odd)
    const total = (text: string, name: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
        .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
    const scrapes = await Promise.all([1, 2, 3, 4].map(async () => (await get(main.url, '/metrics')).text()));
    for (const text of scrapes) {
      expect(total(text, 'agent_runs_total')).toBe(3);
      expect(text.match(/^nodejs_version_info\{/gm)).toHaveLength(1); // the default metrics, one series for both
    }
  });

  it('a worker killed with SIGKILL is replaced; the other keeps answering meanwhile', async () => {
    const [victim, survivor] = main.children();
    process.kill(victim, 'SIGKILL');
    await main.waitForLine((l) => l.context === 'Cluster' && l.worker_pid === victim && /died \(SIGKILL\)/.test(l.msg ?? ''));
    const from = main.lines.length;
    expect(new Set(await servingPids(main, '/v1/tools', 3))).toEqual(new Set([survivor]));

    const replacement = await main.waitForLine(listening, 60_000, from);
    expect(replacement.pid).not.toBe(victim);
    expect(replacement.msg).toContain('processes: 2,');
    expect(main.children().sort()).toEqual([survivor, replacement.pid].sort());
    expect(new Set(await servingPids(main, '/v1/agents', 6))).toEqual(new Set([survivor, replacement.pid]));
  }, 90_000);

  it('SIGTERM to the primary stops every process gracefully (a turn in flight finishes); the primary exits 0', async () => {
    const workers = main.children();
    expect(workers).toHaveLength(2);
    const client = new Client({ apiUrl: main.url, callerOptions: { maxRetries: 0 } });
    model.latencyMs = 1500;
    model.enqueue({ content: 'Finished within the grace period.' });
    const calls = model.callCount;
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, 'react', {
      input: { messages: [{ role: 'user', content: 'Take your time.' }] },
    });
    await waitFor(async () => (model.callCount > calls ? true : undefined));

    main.child.kill('SIGTERM');
    await expect(main.exited).resolves.toEqual({ code: 0, signal: null });
    model.latencyMs = 0;
    for (const pid of workers) expect(processAlive(pid)).toBe(false);
    expect(main.lines.filter((l) => l.context === 'Cluster').map((l) => l.msg)).toEqual(
      expect.arrayContaining(['SIGTERM: stopping 2 API processes', 'all API processes stopped: exit 0']),
    );
    // the worker running the turn had RUN_SHUTDOWN_GRACE_MS to finish it, as a single process has
    const pg = new PgClient({ connectionString: db.url });
    await pg.connect();
    try {
      const { rows } = await pg.query('SELECT status FROM runs WHERE id = $1', [run.run_id]);
      expect(rows).toEqual([{ status: 'completed' }]);
    } finally {
      await pg.end();
    }
  }, 60_000);

  it('the workers exit when the primary dies', async () => {
    const again = new MainProcess(await freePort(), { ...env, WEB_CONCURRENCY: '2' });
    try {
      await waitFor(async () => (again.lines.filter(listening).length === 2 ? true : undefined), 90_000);
      const workers = again.children();
      expect(workers).toHaveLength(2);
      again.child.kill('SIGKILL');
      await waitFor(async () => (workers.every((pid) => !processAlive(pid)) ? true : undefined), 10_000);
    } finally {
      if (again.child.exitCode === null) again.child.kill('SIGKILL');
    }
  }, 120_000);

  it('workers that keep dying at start-up are retried with a growing delay, then the primary exits 1', async () => {
    await brokenStartUp; // started beside the tests above (workersKeepDyingAtStartUp)
  }, 120_000);
});

describe('WEB_CONCURRENCY=2 on the embedded database and queue', () => {
  it('runs one process and says why', async () => {
    await embedded; // started with the file, beside the cluster (embeddedRunsOneProcess)
  }, 120_000);
});

/** `node dist/main.js` with WEB_CONCURRENCY=2 on the embedded database (DATA_DIR): one process, and a warning saying why. */
async function embeddedRunsOneProcess(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'web-concurrency-'));
  const main = new MainProcess(await freePort(), { DATA_DIR: dataDir, WEB_CONCURRENCY: '2' });
  try {
    const ready = await main.waitForLine(listening, 90_000);
    expect(ready.pid).toBe(main.pid);
    expect(ready.msg).toContain('processes: 1, database: embedded, queue: inline');
    const warning = main.lines.find((l) => l.context === 'Cluster');
    expect(warning).toMatchObject({ level: 'warn', pid: main.pid });
    expect(warning!.msg).toMatch(/^WEB_CONCURRENCY=2 ignored: without DATABASE_URL and REDIS_URL .* running one API process$/);
    expect(main.children()).toEqual([]);
    expect(await servingPids(main, '/v1/agents', 2)).toEqual([main.pid, main.pid]);
  } finally {
    main.child.kill('SIGTERM');
    await main.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}
