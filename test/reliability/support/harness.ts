import { Queue } from 'bullmq';
import { Client } from 'pg';

import { redisOptions } from '../../../src/config/redis-options';
import { RUNS_QUEUE } from '../../../src/runs/run.job';
import { untrustedBodies } from '../../../src/tools/untrusted';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase, uniqueQueuePrefix } from '../../support/infra';
import { type ChatRequest, ScriptedModelServer } from '../../support/model-server';
import { http, type RunningApp, startApp, waitFor } from '../../support/test-app';
import { WorkerProcess } from '../../support/worker-process';
import { WeatherServer } from './weather-server';

/** Short lock and stall settings: a crashed worker's job is taken over within ~1.5 s. */
export const LOCK_MS = 1000;
export const STALL_MS = 500;

/**
 * One fault scenario's world: its own database and queue prefix, a scripted model, a weather server that
 * counts tool executions, the API in this process (RUN_WORKER=false) and worker processes started on demand.
 */
export class Harness {
  readonly model = new ScriptedModelServer();
  readonly weather = new WeatherServer();
  readonly workers: WorkerProcess[] = [];
  db!: TestDatabase;
  api!: RunningApp;
  env!: Record<string, string>;

  /** `dbVia`: the port of a proxy or a PgBouncer in front of Postgres, which API and workers then connect through. */
  async start(label: string, extra: Record<string, string> = {}, apiEnv: Record<string, string> = {}, dbVia?: number): Promise<this> {
    await this.model.start();
    await this.weather.start();
    this.db = await createTestDatabase(label);
    const dbUrl = new URL(this.db.url);
    if (dbVia) dbUrl.port = String(dbVia);
    this.env = {
      DATABASE_URL: dbUrl.toString(),
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: uniqueQueuePrefix(label),
      LLM_BASE_URL: this.model.baseUrl,
      LLM_MODEL: 'm',
      LLM_MAX_RETRIES: '0',
      LLM_TIMEOUT_MS: '60000',
      LLM_CACHE: 'false',
      RUN_LOCK_MS: String(LOCK_MS),
      RUN_STALLED_CHECK_MS: String(STALL_MS),
      RUN_RECONCILE_MS: '500',
      DEFAULT_AGENT: 'assistant',
      OPENWEATHER_API_KEY: 'test',
      OPENWEATHER_BASE_URL: this.weather.baseUrl,
      TOOLS_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'error',
      ...extra,
    };
    this.api = await startApp({ ...this.env, RUN_WORKER: 'false', ...apiEnv });
    return this;
  }

  async startWorker(extra: Record<string, string> = {}): Promise<WorkerProcess> {
    const w = await WorkerProcess.start({ ...this.env, LOG_LEVEL: 'log', ...extra });
    this.workers.push(w);
    return w;
  }

  /** Stops every worker started so far (SIGKILL). */
  async killWorkers(): Promise<void> {
    for (const w of this.workers.splice(0)) await w.stop();
  }

  async stop(): Promise<void> {
    this.weather.release();
    await this.killWorkers();
    await this.api?.close();
    const q = new Queue(RUNS_QUEUE, { connection: redisOptions(TEST_REDIS_URL), prefix: this.env.QUEUE_PREFIX });
    await q.obliterate({ force: true }).catch(() => undefined);
    await q.close();
    await this.model.stop();
    await this.weather.stop();
    await this.db?.drop();
  }

  async query<T = any>(sql: string, params: unknown[] = []): Promise<T[]> {
    const c = new Client({ connectionString: this.db.url });
    await c.connect();
    try {
      return (await c.query(sql, params)).rows as T[];
    } finally {
      await c.end();
    }
  }

  submit(message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    return fetch(`${this.api.url}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ message, ...extra }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
  }

  job(id: string) {
    return http(this.api.url, 'GET', `/v1/jobs/${id}`).then((r) => r.body);
  }

  /** Waits until every run has ended and returns the rows. */
  async allEnded(ids: string[], timeoutMs = 30_000) {
    return waitFor(async () => {
      const rows = await this.query(`SELECT * FROM runs WHERE id = ANY($1::uuid[])`, [ids]);
      return rows.length === ids.length && rows.every((r) => ['completed', 'failed', 'cancelled'].includes(r.status)) ? rows : undefined;
    }, timeoutMs);
  }

  /** The stored messages of a session, as `role:content`. */
  async messages(sessionId: string): Promise<string[]> {
    const rows = await this.query(`SELECT role, content FROM messages WHERE session_id = $1 ORDER BY seq`, [sessionId]);
    return rows.map((r) => `${r.role}:${r.content}`);
  }
}

/**
 * A model that decides like a real one from the conversation: "weather in A and B" → one get_weather call per
 * city (ids unique per request); after tool results → an answer quoting them; anything else → a short answer.
 */
export function weatherResponder(req: ChatRequest) {
  const last = req.messages[req.messages.length - 1];
  if (last?.role === 'tool') {
    // a real model reads the data inside the service's untrusted-data markers
    const tools = req.messages.filter((m) => m.role === 'tool').map((m) => untrustedBodies(String(m.content)).trim().split(' ')[0]);
    return { content: `날씨를 확인했습니다: ${tools.join(', ')}` };
  }
  const text = typeof last?.content === 'string' ? last.content : '';
  const cities = text
    .match(/weather in ([\w ,]+)/)?.[1]
    ?.split(/,| and /)
    .map((c) => c.trim())
    .filter(Boolean);
  if (cities?.length) return { toolCalls: cities.map((city) => ({ name: 'get_weather', args: { city } })) };
  return { content: `답변: ${text.slice(0, 40)}` };
}

/** The user-role and tool-role messages the model was last shown for a run's conversation. */
export function historyOf(req: ChatRequest): { user: string[]; toolCallIds: string[] } {
  return {
    user: req.messages.filter((m) => m.role === 'user').map((m) => String(m.content)),
    toolCallIds: req.messages.filter((m) => m.role === 'tool').map((m) => String(m.tool_call_id)),
  };
}
