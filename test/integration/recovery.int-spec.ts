import { randomUUID } from 'node:crypto';

import { Queue } from 'bullmq';
import { Client } from 'pg';

import { redisOptions } from '../../src/config/redis-options';
import { RUNS_QUEUE } from '../../src/runs/run.job';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase, uniqueQueuePrefix } from '../support/infra';
import { ScriptedModelServer } from '../support/model-server';
import { http, startApp, waitFor } from '../support/test-app';
import { WorkerProcess } from '../support/worker-process';

/** An accepted run always reaches a final, recorded state — also when the process running it dies. */
describe('run recovery', () => {
  const model = new ScriptedModelServer();
  let db: TestDatabase;

  beforeAll(async () => {
    await model.start();
    db = await createTestDatabase('recovery');
  });

  afterAll(async () => {
    await model.stop();
    await db?.drop();
  });

  const query = async (sql: string, params: unknown[] = []) => {
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      return (await c.query(sql, params)).rows;
    } finally {
      await c.end();
    }
  };

  it('a job whose worker process was killed (SIGKILL) is taken over by another worker and completes', async () => {
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: uniqueQueuePrefix('recovery'),
      LLM_BASE_URL: model.baseUrl,
      LLM_MODEL: 'm',
      LLM_MAX_RETRIES: '0',
      LLM_TIMEOUT_MS: '60000',
      LLM_CACHE: 'false',
      RUN_LOCK_MS: '1000',
      RUN_STALLED_CHECK_MS: '500',
      LOG_LEVEL: 'error',
    };
    const api = await startApp({ ...env, RUN_WORKER: 'false' });
    const first = await WorkerProcess.start({ ...env, LOG_LEVEL: 'log' });
    let second: WorkerProcess | undefined;
    try {
      model.enqueue({ fault: 'hang' }, { content: 'answered after the takeover' });
      const sub = await http(api.url, 'POST', '/v1/jobs', { message: 'Please answer slowly' });
      await waitFor(async () => (model.callCount === 1 ? true : undefined));

      first.kill('SIGKILL'); // a crash: no lock release, no lease release
      await first.exited;
      second = await WorkerProcess.start({ ...env, LOG_LEVEL: 'log' });

      const job = await waitFor(async () => {
        const j = (await http(api.url, 'GET', `/v1/jobs/${sub.body.job_id}`)).body;
        return j.status === 'completed' ? j : undefined;
      }, 20_000);
      expect(job.result.response).toBe('answered after the takeover');
      const [row] = await query('SELECT attempts, status, llm_calls FROM runs WHERE id = $1', [sub.body.job_id]);
      // the hung call never answered (no usage); the answered one counts once
      expect(row).toEqual({ attempts: 2, status: 'completed', llm_calls: 1 });
      const session = await http(api.url, 'GET', `/v1/sessions/${sub.body.session_id}`);
      expect(session.body.messages.map((m: any) => m.role)).toEqual(['user', 'assistant']);
    } finally {
      await model.stop(); // releases the hung request of the crashed worker
      await model.start();
      await second?.stop();
      await first.stop();
      await api.close();
      const q = new Queue(RUNS_QUEUE, { connection: redisOptions(TEST_REDIS_URL), prefix: env.QUEUE_PREFIX });
      await q.obliterate({ force: true }).catch(() => undefined);
      await q.close();
    }
  });

  it('without Redis, runs left unfinished by a previous process are executed at start-up', async () => {
    const env = { DATABASE_URL: db.url, LOG_LEVEL: 'error' };
    const svc = await startApp(env);
    const turn = await http(svc.url, 'POST', '/v1/chat', { message: '1+1' });
    await svc.close();

    // what a crash leaves behind: a run accepted (and one even started) but never finished
    const queued = randomUUID();
    const running = randomUUID();
    for (const [id, status] of [
      [queued, 'queued'],
      [running, 'running'],
    ]) {
      await query(`INSERT INTO runs (id, session_id, agent, mode, status, input, attempts) VALUES ($1, $2, 'react', 'async', $3, $4, $5)`, [
        id,
        turn.body.session_id,
        status,
        JSON.stringify({ message: status === 'queued' ? '2*21' : '3*3' }),
        status === 'running' ? 1 : 0,
      ]);
    }
    const restarted = await startApp(env);
    try {
      for (const [id, answer] of [
        [running, '3*3 = 9'],
        [queued, '2*21 = 42'],
      ]) {
        const job = await waitFor(async () => {
          const j = (await http(restarted.url, 'GET', `/v1/jobs/${id}`)).body;
          return j.status === 'completed' ? j : undefined;
        });
        expect(job.result.response).toBe(answer);
      }
    } finally {
      await restarted.close();
    }
  });
});
