import type { INestApplication } from '@nestjs/common';
import { Queue } from 'bullmq';

import { redisOptions } from '../../src/config/redis-options';
import { RUNS_QUEUE } from '../../src/runs/run.job';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase, uniqueQueuePrefix } from './infra';
import { type EndpointBehaviour, ScriptedModelServer } from './model-server';
import { http, type RunningApp, startApp } from './test-app';

type Env = Record<string, string | undefined>;

/** The scripted model's usual settings: any model name, no retries, no LLM cache. Spread into `env`. */
export const SCRIPTED_LLM = { LLM_MODEL: 'm', LLM_MAX_RETRIES: '0', LLM_CACHE: 'false' } as const;

export interface ServiceModelOptions {
  /** `model.reset()` before each test of the enclosing describe block */
  resetEach?: boolean;
  /** endpoint capabilities applied after start (and again after each reset, with `resetEach`) */
  configure?: EndpointBehaviour;
}

/** What an `env` function sees: the fixture's infrastructure, already started. */
export interface ServiceContext {
  db?: TestDatabase;
  model: ScriptedModelServer;
  queuePrefix?: string;
}

export interface ServiceOptions {
  /**
   * The app's environment, merged over the fixture's: DATABASE_URL (with `db`), LLM_BASE_URL (with `model`),
   * REDIS_URL and QUEUE_PREFIX (with `redis`). A function is called once everything is started, so it can use
   * the model's or the database's URL under another name; a key set to `undefined` drops a default.
   */
  env?: Env | ((ctx: ServiceContext) => Env);
  /** a scripted model server, started before the app (`true`: start/stop only) */
  model?: boolean | ServiceModelOptions;
  /** a fresh database for this block (default true) */
  db?: boolean;
  /** the local Redis with a queue prefix of its own, obliterated at teardown */
  redis?: boolean;
  /** runs once the model and the database are up, before `env` is read and the app starts (e.g. a proxy in front of the model) */
  beforeStart?: (ctx: ServiceContext) => Promise<void> | void;
}

export interface ServiceHandle {
  readonly url: string;
  readonly app: INestApplication;
  readonly model: ScriptedModelServer;
  readonly db: TestDatabase;
  readonly queuePrefix: string;
  /** the environment the app was started with */
  readonly env: Env;
  /** JSON over HTTP against this app (see `http` in test-app) */
  http<T = any>(method: string, path: string, body?: unknown, raw?: string): ReturnType<typeof http<T>>;
  /** close the app and start it again on the same database (with `env` merged over the current one) */
  restart(env?: Env): Promise<void>;
}

/**
 * The app under test for one describe block (or file): registers beforeAll (model, database, app, in that
 * order), afterAll (the reverse) and, with `model: { resetEach: true }`, a beforeEach that resets the model.
 *
 *   const svc = useService('plan_execute', { env: SCRIPTED_LLM, model: { resetEach: true } });
 *   it('…', async () => { svc.model.enqueue({ content: 'hi' }); expect((await svc.http('GET', '/health')).status).toBe(200); });
 *
 * Hooks run in declaration order: a beforeAll declared after useService runs once the app is up, and one
 * declared before it (e.g. a stub server whose URL the `env` function reads) runs first.
 */
export function useService(label: string, options: ServiceOptions = {}): ServiceHandle {
  const model = new ScriptedModelServer();
  const modelOptions = typeof options.model === 'object' ? options.model : options.model ? {} : undefined;
  const wantsDb = options.db ?? true;
  let db: TestDatabase | undefined;
  let queuePrefix: string | undefined;
  let running: RunningApp | undefined;
  let env: Env = {};

  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`useService('${label}'): no ${what} (not asked for, or not started yet)`);
    return value;
  };

  beforeAll(async () => {
    if (modelOptions) {
      await model.start();
      if (modelOptions.configure) model.configure(modelOptions.configure);
    }
    if (wantsDb) db = await createTestDatabase(label);
    if (options.redis) queuePrefix = uniqueQueuePrefix(label);
    await options.beforeStart?.({ db, model, queuePrefix });
    const defaults: Env = {
      ...(db ? { DATABASE_URL: db.url } : {}),
      ...(modelOptions ? { LLM_BASE_URL: model.baseUrl } : {}),
      ...(queuePrefix ? { REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: queuePrefix } : {}),
    };
    const own = typeof options.env === 'function' ? options.env({ db, model, queuePrefix }) : (options.env ?? {});
    env = { ...defaults, ...own };
    running = await startApp(env);
  });

  afterAll(async () => {
    // a close that takes long says what is still open: the runs not ended, the leases held, the handles alive
    const t0 = Date.now();
    const slowClose = setTimeout(() => void reportSlowClose(label, db?.url, t0), 20_000);
    await running?.close();
    clearTimeout(slowClose);
    if (queuePrefix) {
      const q = new Queue(RUNS_QUEUE, { connection: redisOptions(TEST_REDIS_URL), prefix: queuePrefix });
      await q.obliterate({ force: true }).catch(() => undefined);
      await q.close();
    }
    if (modelOptions) await model.stop();
    await db?.drop();
  });

  if (modelOptions?.resetEach) {
    beforeEach(() => {
      model.reset();
      if (modelOptions.configure) model.configure(modelOptions.configure);
    });
  }

  return {
    get url() {
      return need(running, 'app').url;
    },
    get app() {
      return need(running, 'app').app;
    },
    get model() {
      need(modelOptions, 'model');
      return model;
    },
    get db() {
      return need(db, 'database');
    },
    get queuePrefix() {
      return need(queuePrefix, 'queue prefix');
    },
    get env() {
      return env;
    },
    http: (method, path, body, raw) => http(need(running, 'app').url, method, path, body, raw),
    async restart(more = {}) {
      await running?.close();
      running = undefined;
      env = { ...env, ...more };
      running = await startApp(env);
    },
  };
}

/** Prints, on stderr, what a service that takes long to close still has: unended runs, held leases, live handles. */
async function reportSlowClose(label: string, dbUrl: string | undefined, since: number): Promise<void> {
  let state = '';
  try {
    if (dbUrl) {
      const { Client } = await import('pg');
      const c = new Client({ connectionString: dbUrl });
      await c.connect();
      try {
        const runs = await c.query(`SELECT id, status, attempts, mode FROM runs WHERE status NOT IN ('completed', 'failed', 'cancelled')`);
        const leases = await c.query(`SELECT id, active_run_id, lease_expires_at FROM sessions WHERE active_run_id IS NOT NULL`);
        state = ` runs ${JSON.stringify(runs.rows)} leases ${JSON.stringify(leases.rows)}`;
      } finally {
        await c.end();
      }
    }
  } catch (err) {
    state = ` (database not read: ${(err as Error).message})`;
  }
  process.stderr.write(
    `service ${label} still closing after ${Date.now() - since} ms:${state} handles ${JSON.stringify(process.getActiveResourcesInfo())}\n`,
  );
}
