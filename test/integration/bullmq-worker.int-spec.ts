import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Queue } from 'bullmq';

import { WorkerModule } from '../../src/app.module';
import { redisOptions } from '../../src/config/redis-options';
import { RUNS_QUEUE } from '../../src/runs/run.job';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase, uniqueQueuePrefix } from '../support/infra';
import { ScriptedModelServer } from '../support/model-server';
import { http, type RunningApp, startApp, waitFor } from '../support/test-app';

/**
 * Queued runs through real BullMQ on the real Redis: the API only enqueues (RUN_WORKER=false) and separate
 * worker processes' modules (WorkerModule, as in src/worker.ts) execute them.
 */
describe('BullMQ runs with separate workers', () => {
  const model = new ScriptedModelServer();
  let db: TestDatabase;
  let api: RunningApp;
  const workers: INestApplicationContext[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    const baseUrl = await model.start();
    db = await createTestDatabase('bullmq');
    env = {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: uniqueQueuePrefix('bullmq'),
      LLM_BASE_URL: baseUrl,
      LLM_MODEL: 'm',
      LLM_MAX_RETRIES: '0',
      LOG_LEVEL: 'error',
      WORKER_CONCURRENCY: '4',
      LLM_CACHE: 'false',
    };
    api = await startApp({ ...env, RUN_WORKER: 'false' });
  });

  afterAll(async () => {
    for (const w of workers) await w.close();
    await api?.close();
    const q = new Queue(RUNS_QUEUE, { connection: redisOptions(TEST_REDIS_URL), prefix: env.QUEUE_PREFIX });
    await q.obliterate({ force: true }).catch(() => undefined);
    await q.close();
    await model.stop();
    await db?.drop();
  });

  const startWorker = async () => {
    const w = await NestFactory.createApplicationContext(WorkerModule.forRoot(env), { logger: ['error'] });
    await w.init();
    workers.push(w);
    return w;
  };

  const job = (id: string) => http(api.url, 'GET', `/v1/jobs/${id}`).then((r) => r.body);

  it('leaves jobs queued while no worker runs, then a worker process completes them', async () => {
    model.setResponder((req) => {
      const last = req.messages.at(-1);
      if (last?.role === 'tool') return { content: `result: ${last.content}` };
      return { toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] };
    });
    const subs = await Promise.all([1, 2, 3].map(() => http(api.url, 'POST', '/v1/jobs', { message: 'multiply six by seven' })));
    expect(subs.map((s) => s.status)).toEqual([202, 202, 202]);
    // in the queue, waiting: no worker (the API runs none) has taken them
    const q = new Queue(RUNS_QUEUE, { connection: redisOptions(TEST_REDIS_URL), prefix: env.QUEUE_PREFIX });
    try {
      await waitFor(async () => {
        const states = await Promise.all(subs.map((s) => q.getJobState(s.body.job_id as string)));
        return states.every((st) => st === 'waiting') ? true : undefined;
      });
    } finally {
      await q.close();
    }
    for (const s of subs) expect((await job(s.body.job_id)).status).toBe('queued');

    await startWorker();
    for (const s of subs) {
      const done = await waitFor(async () => {
        const j = await job(s.body.job_id);
        return j.status === 'completed' ? j : undefined;
      });
      expect(done.result).toMatchObject({ response: 'result: 42', llm_calls: 2, tools_used: ['calculator'] });
      const bySession = await http(api.url, 'GET', `/v1/sessions/${s.body.session_id}/result`);
      expect(bySession.body.run_id).toBe(s.body.job_id);
    }
    model.setResponder(undefined);
  });

  it('keeps turns of one session in order across two worker processes', async () => {
    await startWorker();
    model.latencyMs = 50;
    model.setResponder((req) => ({ content: `echo ${req.messages.at(-1)?.content}` }));
    const first = await http(api.url, 'POST', '/v1/jobs', { message: 'm1' });
    const ids = [first.body.job_id];
    for (const m of ['m2', 'm3', 'm4']) {
      ids.push((await http(api.url, 'POST', '/v1/jobs', { message: m, session_id: first.body.session_id })).body.job_id);
    }
    for (const id of ids) await waitFor(async () => ((await job(id)).status === 'completed' ? true : undefined));
    model.setResponder(undefined);
    model.latencyMs = 0;
    const session = await http(api.url, 'GET', `/v1/sessions/${first.body.session_id}`);
    expect(session.body.messages.map((m: any) => m.content)).toEqual(['m1', 'echo m1', 'm2', 'echo m2', 'm3', 'echo m3', 'm4', 'echo m4']);
  });

  it('cancels a running job on whichever worker runs it', async () => {
    model.latencyMs = 3000;
    model.setResponder(() => ({ content: 'never seen' }));
    const sub = await http(api.url, 'POST', '/v1/jobs', { message: 'slow' });
    await waitFor(async () => ((await job(sub.body.job_id)).status === 'running' && model.callCount > 0 ? true : undefined));
    const res = await http(api.url, 'POST', `/v1/jobs/${sub.body.job_id}/cancel`);
    expect(res.status).toBe(200);
    const ended = await waitFor(async () => {
      const j = await job(sub.body.job_id);
      return j.status === 'cancelled' ? j : undefined;
    }, 2500);
    expect(ended.error.code).toBe('CANCELLED');
    model.setResponder(undefined);
    model.latencyMs = 0;
  });
});
