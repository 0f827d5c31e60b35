/**
 * `npm run bench:soak` (not in CI; the kill soak is `SOAK_MODE=kill`): SOAK_TURNS turns (default 10,000) through
 * the shipped command, `node dist/main.js` (build first), on real Postgres and Redis (`SOAK_QUEUE=inprocess`: no
 * Redis, the in-process queue and event bus). SOAK_CLIENTS clients each keep a few sessions: a turn starts a new
 * session or continues one, goes through `POST /v1/chat` or `POST /v1/jobs` (then polled), on the react or the
 * assistant agent, and asks for `get_weather` (a local counting server), `calculator` or nothing. After every
 * 1,000 turns the clients pause and the API collects garbage (`--expose-gc`, MEMORY_STATS_FILE, SIGUSR2): heap
 * used after GC and RSS; RSS is also sampled every second throughout.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Queue } from 'bullmq';

import { redisOptions } from '../src/config/redis-options';
import { RUNS_QUEUE } from '../src/runs/run.job';
import { WeatherServer } from '../test/reliability/support/weather-server';
import { createTestDatabase, TEST_REDIS_URL, uniqueQueuePrefix } from '../test/support/infra';
import { freePort, MainProcess } from '../test/support/main-process';
import { memoryAfterGc } from '../test/support/memory-stats';
import { type ChatRequest, ScriptedModelServer } from '../test/support/model-server';
import { round } from './lib';

const TURNS = Number(process.env.SOAK_TURNS ?? 10_000);
const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 4);
const EVERY = Number(process.env.SOAK_SAMPLE_EVERY ?? 1000);
const REDIS = process.env.SOAK_QUEUE !== 'inprocess';
const CITIES = ['Seoul', 'Busan', 'Incheon', 'Daegu', 'Jeju'];

/** A model that calls the tool the message asks for, then answers from its result. */
function responder(req: ChatRequest) {
  const last = req.messages[req.messages.length - 1];
  if (last?.role === 'tool') return { content: `Done: ${String(last.content).slice(0, 60)}` };
  const text = typeof last?.content === 'string' ? last.content : '';
  const city = text.match(/weather in (\w+)/)?.[1];
  if (city) return { toolCalls: [{ name: 'get_weather', args: { city } }] };
  const expr = text.match(/compute ([\d*+ ]+)/)?.[1];
  if (expr) return { toolCalls: [{ name: 'calculator', args: { expression: expr.trim() } }] };
  return { content: `Noted: ${text.slice(0, 40)}` };
}

interface Session {
  id?: string;
  agent: string;
  turns: number;
}

async function main(): Promise<void> {
  const model = new ScriptedModelServer();
  const weather = new WeatherServer();
  await model.start();
  await weather.start();
  model.setResponder((req) => {
    model.requests.length = 0; // the bench keeps no history of its own
    return responder(req);
  });
  const db = await createTestDatabase('soak_turns');
  const prefix = uniqueQueuePrefix('soak_turns');
  const dir = mkdtempSync(path.join(tmpdir(), 'soak-'));
  const statsFile = path.join(dir, 'memory.jsonl');
  const api = new MainProcess(await freePort(), {
    DATABASE_URL: db.url,
    ...(REDIS ? { REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix } : {}),
    LLM_BASE_URL: model.baseUrl,
    LLM_MODEL: 'soak',
    LLM_MAX_RETRIES: '0',
    OPENWEATHER_API_KEY: 'soak',
    OPENWEATHER_BASE_URL: weather.baseUrl,
    TOOLS_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
    LOG_LEVEL: 'warn',
    MEMORY_STATS_FILE: statsFile,
    NODE_OPTIONS: '--expose-gc',
  });
  await waitUntilLive(api.url);
  let maxRss = 0;
  const rssNow = () => {
    const kb = Number(readFileSync(`/proc/${api.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? 0);
    maxRss = Math.max(maxRss, Math.round(kb / 1024));
  };
  const sampler = setInterval(rssNow, 1000);

  const counts = { chat: 0, jobs: 0, newSessions: 0, failed: 0 };
  const post = async (p: string, body: unknown) => {
    const res = await fetchRetry(`${api.url}${p}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const turn = async (n: number, sessions: Session[]) => {
    const fresh = sessions.length < 3 || n % 5 === 0;
    const session = fresh ? { agent: n % 2 ? 'react' : 'assistant', turns: 0 } : sessions[n % sessions.length];
    if (fresh) {
      sessions.push(session);
      if (sessions.length > 3) sessions.shift();
      counts.newSessions++;
    }
    const kind = n % 3;
    const message = kind === 0 ? `weather in ${CITIES[n % CITIES.length]}?` : kind === 1 ? `compute ${n % 97} * 7` : `remember turn ${n}`;
    const body = { message, agent: session.agent, ...(session.id ? { session_id: session.id } : {}) };
    let status: string;
    if (n % 4 === 3) {
      counts.jobs++;
      const accepted = await post('/v1/jobs', body);
      session.id = accepted.body.session_id;
      status = await jobEnd(api.url, accepted.body.job_id);
    } else {
      counts.chat++;
      const res = await post('/v1/chat', body);
      session.id = res.body.session_id;
      status = res.status === 200 && !res.body.error ? 'completed' : `http ${res.status}`;
    }
    if (status !== 'completed') counts.failed++;
    session.turns++;
  };

  const rows: Array<{ turns: number; heapMb: number; rssMb: number; maxRssMb: number; s: number }> = [];
  const started = Date.now();
  const clients = Array.from({ length: CLIENTS }, () => [] as Session[]);
  let next = 0;
  for (let done = 0; done < TURNS;) {
    const upTo = Math.min(TURNS, done + EVERY);
    await Promise.all(
      clients.map(async (sessions) => {
        while (next < upTo) await turn(next++, sessions);
      }),
    );
    done = upTo;
    rssNow();
    const m = await memoryAfterGc(api.pid, statsFile);
    rows.push({ turns: done, ...m, maxRssMb: maxRss, s: round((Date.now() - started) / 1000) });
    console.error(`${done} turns: heap after GC ${m.heapMb} MB, RSS ${m.rssMb} MB (max so far ${maxRss} MB)`);
  }
  clearInterval(sampler);

  console.log(`\n## Soak: ${TURNS} turns, ${CLIENTS} clients, ${REDIS ? 'Postgres + Redis (BullMQ)' : 'Postgres, in-process queue'}\n`);
  console.log(
    `${counts.chat} \`/v1/chat\`, ${counts.jobs} \`/v1/jobs\`; ${counts.newSessions} new sessions; ${counts.failed} not completed; ` +
      `${weather.total} get_weather calls; ${round(TURNS / ((Date.now() - started) / 1000))} turns/s\n`,
  );
  console.log('| turns | heap used after GC (MB) | RSS after GC (MB) | max RSS so far (MB) | s |\n|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.turns} | ${r.heapMb} | ${r.rssMb} | ${r.maxRssMb} | ${r.s} |`);

  api.child.kill('SIGTERM');
  await api.exited;
  if (REDIS) {
    const q = new Queue(RUNS_QUEUE, { connection: redisOptions(TEST_REDIS_URL), prefix });
    await q.obliterate({ force: true }).catch(() => undefined);
    await q.close();
  }
  await model.stop();
  await weather.stop();
  await db.drop();
  rmSync(dir, { recursive: true, force: true });
}

/** Polls a queued run until it has ended; its status. */
async function jobEnd(base: string, id: string): Promise<string> {
  for (;;) {
    const job = (await (await fetchRetry(`${base}/v1/jobs/${id}`)).json()) as { status: string };
    if (['completed', 'failed', 'cancelled', 'interrupted'].includes(job.status)) return job.status;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function waitUntilLive(base: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (
      await fetch(`${base}/health/live`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the API did not start within 60 s');
}

/** One retry: a kept-alive connection the server closed while idle (its keep-alive timeout) fails once. */
function fetchRetry(url: string, init?: RequestInit): Promise<Response> {
  return fetch(url, init).catch(() => fetch(url, init));
}

export function soakTurns(): Promise<void> {
  return main();
}
