import path from 'node:path';

import { Queue } from 'bullmq';

import { redisOptions } from '../../src/config/redis-options';
import { RUNS_QUEUE } from '../../src/runs/run.job';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase, uniqueQueuePrefix } from '../support/infra';
import { http, type RunningApp, startApp, waitFor } from '../support/test-app';
import { WorkerProcess } from '../support/worker-process';

const CONFIG = path.resolve(__dirname, '../fixtures/graphs/langgraph.json');

/**
 * A worker started without the API's LANGGRAPH_CONFIG takes a queued run of a custom graph: the run fails
 * AGENT_NOT_REGISTERED with a message naming the graph and LANGGRAPH_CONFIG, not INTERNAL_ERROR; a worker with
 * the same configuration runs it.
 */
describe('a worker without the graphs the API accepts', () => {
  let db: TestDatabase;
  let api: RunningApp;
  let worker: WorkerProcess | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    db = await createTestDatabase('worker_graphs');
    env = { DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: uniqueQueuePrefix('worker_graphs'), LOG_LEVEL: 'error' };
    api = await startApp({ ...env, RUN_WORKER: 'false', LANGGRAPH_CONFIG: CONFIG });
  });

  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    const q = new Queue(RUNS_QUEUE, { connection: redisOptions(TEST_REDIS_URL), prefix: env.QUEUE_PREFIX });
    await q.obliterate({ force: true }).catch(() => undefined);
    await q.close();
    await db?.drop();
  });

  const finished = (jobId: string) =>
    waitFor(
      async () => {
        const job = await http(api.url, 'GET', `/v1/jobs/${jobId}`);
        return ['completed', 'failed'].includes(job.body.status) ? job.body : undefined;
      },
      45_000,
      100,
    );

  it('fails the run with an error naming the graph and LANGGRAPH_CONFIG; the same worker with it runs the graph', async () => {
    worker = await WorkerProcess.start({ ...env, LOG_LEVEL: 'log' }, 60_000);
    const queued = await http(api.url, 'POST', '/v1/jobs', { agent: 'echo', message: 'hello' });
    expect(queued.status).toBe(202);
    const job = await finished(queued.body.job_id);
    expect(job.status).toBe('failed');
    expect(job.error.code).toBe('AGENT_NOT_REGISTERED');
    expect(job.error.message).toMatch(/^agent "echo" is not registered in the process that took the run \(it has: .*react.*\)/);
    expect(job.error.message).toMatch(/start workers with the same LANGGRAPH_CONFIG/);
    expect(job.result.response).toBe('The request could not be completed.');

    await worker.stop();
    worker = await WorkerProcess.start({ ...env, LOG_LEVEL: 'log', LANGGRAPH_CONFIG: CONFIG }, 60_000);
    const again = await http(api.url, 'POST', '/v1/jobs', { agent: 'echo', message: 'hello' });
    const done = await finished(again.body.job_id);
    expect(done).toMatchObject({ status: 'completed', result: { response: 'echo #1: hello', error: null } });
  });
});
