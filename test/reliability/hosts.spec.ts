import path from 'node:path';

import { Client } from 'pg';

import { buildOnce } from '../support/build-once';
import type { ChatRequest, ScriptedReply } from '../support/model-server';
import { ScriptedModelServer } from '../support/model-server';
import { cleanupStale, createHosts, type HostProcess, type Hosts, startPostgres, startRedis } from '../support/netns-hosts';
import { waitFor } from '../support/test-app';
import { historyOf, weatherResponder } from './support/harness';
import { WeatherServer } from './support/weather-server';

/**
 * Several hosts on one machine (test/support/netns-hosts.ts): Postgres, Redis, two API hosts (`node
 * dist/main.js`, RUN_WORKER=false) and two worker hosts (`node dist/worker.js`), each a network namespace with an
 * address of its own on a bridge; the model and the weather service (which counts the tool's executions) run in
 * this process on the bridge's address, and so does the client. Cutting a host takes its cable down: its
 * connections are neither closed nor reset, its packets are dropped.
 *
 * By hand, as root (builds dist first when it is stale; then about 50 s on two busy cores):
 *   NODE_OPTIONS=--experimental-vm-modules npx jest test/reliability/hosts.spec.ts --selectProjects reliability
 */
const LOCK_MS = 1000;
const STALL_MS = 500;
const REPO = path.resolve(__dirname, '../..');
const NAMES = ['db', 'redis', 'api1', 'api2', 'w1', 'w2'];

interface HeldCall {
  message: string;
  /** the worker host that asked (each asks for a model named after its host) */
  worker: string;
  answer(): void;
}

interface SseEvent {
  id?: string;
  event: string;
  data: any;
}

describe('several hosts: cut off from the network mid-run', () => {
  const model = new ScriptedModelServer();
  const weather = new WeatherServer();
  const held: HeldCall[] = [];
  const procs: Record<string, HostProcess> = {};
  let hosts: Hosts;
  let db: Client;

  const apiUrl = (host: string) => `http://${hosts.addr(host)}:3000`;
  const heldFor = (message: string) => held.filter((c) => c.message === message);
  const query = async (sql: string, params: unknown[] = []) => (await db.query(sql, params)).rows;
  const messages = async (sessionId: string) =>
    (await query(`SELECT role, content FROM messages WHERE session_id = $1 ORDER BY seq`, [sessionId])).map(
      (r) => `${r.role}:${r.content}`,
    );
  /** a JSON log line of the process about the run with one of these messages */
  const logged = (host: string, runId: string, msgs: string[]) =>
    procs[host].output.split('\n').some((l) => l.includes(runId) && msgs.some((m) => l.includes(`"msg":"${m}"`)));

  async function submit(api: string, message: string): Promise<{ job_id: string; session_id: string }> {
    const res = await fetch(`${apiUrl(api)}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message }),
    });
    expect(res.status).toBe(202);
    return (await res.json()) as { job_id: string; session_id: string };
  }

  function ended(runId: string, timeoutMs = 30_000) {
    return waitFor(async () => {
      const [run] = await query(`SELECT * FROM runs WHERE id = $1`, [runId]);
      return ['completed', 'failed', 'cancelled'].includes(run.status) ? run : undefined;
    }, timeoutMs);
  }

  /**
   * A job's SSE stream, each event to `onEvent`, until its `result` ('ended') or until nothing came for `idleMs`
   * ('stalled': a host cut off sends no FIN or RST, silence is all a client sees).
   */
  async function stream(
    url: string,
    onEvent: (e: SseEvent) => void,
    opts: { lastEventId?: string; idleMs: number },
  ): Promise<'ended' | 'stalled'> {
    const abort = new AbortController();
    let idle = setTimeout(() => abort.abort(), opts.idleMs);
    try {
      const res = await fetch(url, { headers: opts.lastEventId ? { 'last-event-id': opts.lastEventId } : {}, signal: abort.signal });
      expect(res.status).toBe(200);
      const decoder = new TextDecoder();
      let text = '';
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        clearTimeout(idle);
        idle = setTimeout(() => abort.abort(), opts.idleMs);
        text += decoder.decode(chunk, { stream: true });
        const blocks = text.split('\n\n');
        text = blocks.pop()!;
        for (const block of blocks) {
          const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(block)?.[1];
          const e = { id: field('id'), event: field('event') ?? 'message', data: JSON.parse(field('data') ?? 'null') };
          onEvent(e);
          if (e.event === 'result') return 'ended';
        }
      }
      throw new Error(`the stream of ${url} closed before its result`);
    } catch (err) {
      if (abort.signal.aborted) return 'stalled';
      throw err;
    } finally {
      clearTimeout(idle);
      abort.abort();
    }
  }

  /** Each after-tool model call is held until the test answers it; a "tour" walks its cities one call at a time. */
  function respond(req: ChatRequest): ScriptedReply | Promise<ScriptedReply> {
    const message = historyOf(req).user[0] ?? '';
    if (message.startsWith('tour:')) {
      const cities = message.slice('tour:'.length).split(',');
      const done = req.messages.filter((m) => m.role === 'tool').length;
      const reply =
        done < cities.length
          ? { toolCalls: [{ name: 'get_weather', args: { city: cities[done].trim() } }] }
          : { content: `toured ${done}` };
      return new Promise((resolve) => setTimeout(() => resolve(reply), 150));
    }
    if (req.messages[req.messages.length - 1]?.role !== 'tool') return weatherResponder(req);
    return new Promise((resolve) =>
      held.push({ message, worker: req.model, answer: () => resolve({ content: `answered on ${req.model}` }) }),
    );
  }

  function start(host: string, entry: string, ready: string, env: Record<string, string>): Promise<HostProcess> {
    procs[host] = hosts.spawn(host, process.execPath, [entry], { cwd: REPO, env });
    return procs[host].waitForOutput(ready, 60_000).then(() => procs[host]);
  }

  beforeAll(async () => {
    cleanupStale();
    buildOnce();
    hosts = createHosts(NAMES);
    const [pg, redis] = await Promise.all([startPostgres(hosts, 'db'), startRedis(hosts, 'redis')]);
    procs.db = pg.process;
    procs.redis = redis.process;
    db = new Client({ connectionString: pg.url });
    db.on('error', () => undefined); // Postgres goes first at teardown
    await db.connect();
    await model.start(0, hosts.gateway);
    await weather.start(hosts.gateway);
    model.setResponder(respond);
    const env = {
      DATABASE_URL: pg.url,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: 'hosts',
      LLM_BASE_URL: model.baseUrl,
      LLM_MAX_RETRIES: '0',
      LLM_TIMEOUT_MS: '60000',
      LLM_CACHE: 'false',
      RUN_LOCK_MS: String(LOCK_MS),
      RUN_STALLED_CHECK_MS: String(STALL_MS),
      RUN_RECONCILE_MS: '500',
      DEFAULT_AGENT: 'assistant',
      OPENWEATHER_API_KEY: 'test',
      OPENWEATHER_BASE_URL: weather.baseUrl,
      TOOLS_ALLOWED_PRIVATE_HOSTS: hosts.gateway,
      LOG_LEVEL: 'log',
      DB_MIGRATIONS_RUN: 'false', // run once below, as a deployment with several hosts does
    };
    const api = (host: string) => ({
      ...env,
      LLM_MODEL: host,
      HOST: hosts.addr(host),
      PORT: '3000',
      RUN_WORKER: 'false',
      WEB_CONCURRENCY: '1',
    });
    const migrate = hosts.spawn('api1', process.execPath, ['dist/cli/migrate.js'], { cwd: REPO, env });
    if ((await migrate.exited) !== 0) throw new Error(`migrations failed:\n${migrate.output}`);
    await Promise.all([
      start('api1', 'dist/main.js', 'listening on', api('api1')),
      start('api2', 'dist/main.js', 'listening on', api('api2')),
      start('w1', 'dist/worker.js', 'consuming runs', { ...env, LLM_MODEL: 'w1' }),
      start('w2', 'dist/worker.js', 'consuming runs', { ...env, LLM_MODEL: 'w2' }),
    ]);
  }, 240_000);

  afterAll(async () => {
    for (const c of held) c.answer();
    await db?.end().catch(() => undefined);
    hosts?.teardown();
    await Promise.all(Object.values(procs).map((p) => p.exited));
    await model.stop();
    await weather.stop();
  });

  it('a worker host cut off mid-run: the other takes the run over and completes it once, the tool ran once', async () => {
    const job = await submit('api1', 'weather in Seoul');
    const first = await waitFor(async () => heldFor('weather in Seoul')[0]);
    const cutAt = Date.now();
    hosts.cut(first.worker);
    const second = await waitFor(async () => heldFor('weather in Seoul').find((c) => c.worker !== first.worker), 15_000);
    const took = Date.now() - cutAt;
    second.answer();
    const run = await ended(job.job_id);

    expect(run).toMatchObject({ status: 'completed', attempts: 2 });
    expect(run.result.response).toBe(`answered on ${second.worker}`);
    expect(weather.count('Seoul')).toBe(1); // executed before the cut, checkpointed: not again
    expect(await messages(job.session_id)).toEqual(['user:weather in Seoul', `assistant:answered on ${second.worker}`]);
    // how soon is measured by `npm run bench:takeover`, not asserted here (a loaded CI machine is no benchmark)
    console.log(
      `takeover across hosts: the other worker called the model ${took} ms after the cut (lock ${LOCK_MS} ms, stall check ${STALL_MS} ms)`,
    );

    // the cut host comes back after the run ended; its call is answered at last: it records nothing
    hosts.restore(first.worker);
    first.answer();
    await waitFor(async () => (logged(first.worker, job.job_id, ['run ended', 'run superseded']) ? true : undefined), 20_000);
    const [after] = await query(`SELECT status, attempts, result FROM runs WHERE id = $1`, [job.job_id]);
    expect(after).toMatchObject({ status: 'completed', attempts: 2, result: { response: `answered on ${second.worker}` } });
    expect(await messages(job.session_id)).toHaveLength(2);
  });

  it('fencing: a host back after its lease lapsed, while another runs its run, does not finish it a second time', async () => {
    const job = await submit('api1', 'weather in Busan');
    const events: SseEvent[] = [];
    const followed = stream(`${apiUrl('api1')}/v1/jobs/${job.job_id}/events`, (e) => events.push(e), { idleMs: 60_000 });
    const first = await waitFor(async () => heldFor('weather in Busan')[0]);
    hosts.cut(first.worker);
    const second = await waitFor(async () => heldFor('weather in Busan').find((c) => c.worker !== first.worker), 15_000);

    // the old process still runs attempt 1: back on the network, its model call is answered
    hosts.restore(first.worker);
    first.answer();
    await waitFor(async () => (logged(first.worker, job.job_id, ['run ended', 'run superseded']) ? true : undefined), 20_000);
    const [meanwhile] = await query(`SELECT status, attempts FROM runs WHERE id = $1`, [job.job_id]);
    expect(meanwhile).toMatchObject({ status: 'running', attempts: 2 }); // attempt 1 did not end it

    second.answer();
    const run = await ended(job.job_id);
    expect(await followed).toBe('ended');
    expect(run).toMatchObject({ status: 'completed', attempts: 2 });
    expect(run.result.response).toBe(`answered on ${second.worker}`);
    expect(weather.count('Busan')).toBe(1);
    expect(await messages(job.session_id)).toEqual(['user:weather in Busan', `assistant:answered on ${second.worker}`]);
    const results = events.filter((e) => e.event === 'result');
    expect(results.map((e) => e.data.response)).toEqual([`answered on ${second.worker}`]); // followers saw one end, the recorded one
  });

  it('an API host cut off while a client streams: the client resumes on the other with Last-Event-ID, no gap, no repeat', async () => {
    const cities = ['Incheon', 'Daegu', 'Daejeon', 'Gwangju', 'Ulsan', 'Suwon', 'Jeonju', 'Pohang'];
    const job = await submit('api1', `tour:${cities.join(',')}`);
    const seen: SseEvent[] = [];
    const onFirst = (e: SseEvent) => {
      seen.push(e);
      if (seen.filter((s) => s.id).length === 4) hosts.cut('api1');
    };
    expect(await stream(`${apiUrl('api1')}/v1/jobs/${job.job_id}/events`, onFirst, { idleMs: 1500 })).toBe('stalled');
    const lastEventId = seen.filter((e) => e.id).at(-1)!.id;
    const beforeCut = seen.length;
    const onSecond = (e: SseEvent) => void seen.push(e);
    expect(await stream(`${apiUrl('api2')}/v1/jobs/${job.job_id}/events`, onSecond, { lastEventId, idleMs: 15_000 })).toBe('ended');
    hosts.restore('api1');
    expect(seen.length - beforeCut).toBeGreaterThan(cities.length); // most of the run came after the cut

    // every event of the run, replayed from the start by the other host
    const all: SseEvent[] = [];
    await stream(`${apiUrl('api2')}/v1/jobs/${job.job_id}/events`, (e) => void all.push(e), { lastEventId: '0-0', idleMs: 15_000 });
    const key = (e: SseEvent) => `${e.id} ${e.event} ${e.data?.status ?? ''} ${e.data?.progress?.node ?? ''}`;
    expect(seen[0]).toMatchObject({ id: undefined, event: 'status' }); // the job as it stood when the client came
    // from the first event the client got on, each one once and in order (a status repeating the one before is not sent)
    const from = all.findIndex((e) => e.id === seen[1].id);
    expect(from).toBeGreaterThanOrEqual(0);
    expect(seen.slice(1).map(key)).toEqual(all.slice(from).map(key));
    expect(all.length).toBeGreaterThan(2 * cities.length);
    expect(seen.at(-1)).toMatchObject({ event: 'result', data: { response: `toured ${cities.length}` } });
    const run = await ended(job.job_id);
    expect(run).toMatchObject({ status: 'completed', attempts: 1 });
    for (const city of cities) expect(weather.count(city)).toBe(1);
  });
});
