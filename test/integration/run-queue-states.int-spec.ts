import { Queue, Worker } from 'bullmq';

import { AppConfig } from '../../src/config/app-config';
import { redisOptions } from '../../src/config/redis-options';
import type { MetricsService } from '../../src/observability/metrics.service';
import { BullRunQueue } from '../../src/runs/bull-run-queue';
import { RUN_JOB, type RunJobData, RUNS_QUEUE } from '../../src/runs/run.job';
import type { RunEnds } from '../../src/runs/run-ends.service';
import type { RunStore } from '../../src/runs/store/run-store';
import { TEST_REDIS_URL, uniqueQueuePrefix } from '../support/infra';

/** The reconciler's bulk view of jobs (one pipeline) against BullMQ's own per-job state, on the real Redis. */
describe('BullRunQueue job states', () => {
  const prefix = uniqueQueuePrefix('job_states');
  const connection = redisOptions(TEST_REDIS_URL);
  const queue = new Queue<RunJobData>(RUNS_QUEUE, { connection, prefix });
  const runs = new BullRunQueue(
    queue,
    new AppConfig({ REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix }),
    {
      watchQueue: () => undefined,
    } as unknown as MetricsService,
    {} as RunEnds,
    {} as RunStore,
  );

  afterAll(async () => {
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
  });

  it('tells missing, pending (waiting, delayed), completed and failed jobs apart, as getState does', async () => {
    // a job that completes and one that fails for good
    await queue.add(RUN_JOB, { runId: 'done' }, { jobId: 'done' });
    await queue.add(RUN_JOB, { runId: 'broken' }, { jobId: 'broken', attempts: 1 });
    let settled = 0;
    const worker = new Worker<RunJobData>(
      RUNS_QUEUE,
      async (job) => {
        if (job.id === 'broken') throw new Error('boom');
        return { status: 'completed' };
      },
      { connection, prefix },
    );
    worker.on('completed', () => settled++);
    worker.on('failed', () => settled++);
    await waitUntil(() => settled === 2);
    await worker.close();
    // then one waiting and one delayed (parked) job, with no worker to take them
    await queue.add(RUN_JOB, { runId: 'waiting' }, { jobId: 'waiting' });
    await queue.add(RUN_JOB, { runId: 'parked' }, { jobId: 'parked', delay: 60_000 });

    const ids = ['done', 'broken', 'waiting', 'parked', 'never-added'];
    const states = await runs.jobStates(ids);
    expect(Object.fromEntries(states)).toEqual({
      done: 'completed',
      broken: 'failed',
      waiting: 'pending',
      parked: 'pending',
      'never-added': 'missing',
    });
    // the same answer as BullMQ's per-job state
    const single = await Promise.all(ids.map((id) => queue.getJobState(id)));
    expect(single).toEqual(['completed', 'failed', 'waiting', 'delayed', 'unknown']);
    expect(await runs.anyParked()).toBe(true);
    await queue.remove('parked');
    expect(await runs.anyParked()).toBe(false);
    expect(await runs.jobStates([])).toEqual(new Map());
  });
});

async function waitUntil(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 20));
  }
}
