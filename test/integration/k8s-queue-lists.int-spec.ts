import { Queue, QueueKeys } from 'bullmq';
import IORedis from 'ioredis';

import { AppConfig } from '../../src/config/app-config';
import { redisOptions } from '../../src/config/redis-options';
import type { MetricsService } from '../../src/observability/metrics.service';
import { BullRunQueue } from '../../src/runs/bull-run-queue';
import { type RunJobData, RUNS_QUEUE } from '../../src/runs/run.job';
import type { RunEnds } from '../../src/runs/run-ends.service';
import type { RunStore } from '../../src/runs/store/run-store';
import { TEST_REDIS_URL, uniqueQueuePrefix } from '../support/infra';

/**
 * What the workers' KEDA ScaledObject (deploy/k8s/base/worker-scaledobject.yaml) counts, on the real Redis: the
 * runs the service queues wait in the Redis LIST `<prefix>:runs:wait` and the ones a worker executes sit in the
 * LIST `<prefix>:runs:active` (KEDA's redis trigger reads a list's length). The unit test
 * src/settings/k8s-manifests.spec.ts checks that the manifest names these keys.
 */
describe('the run queue lists the KEDA trigger reads', () => {
  const prefix = uniqueQueuePrefix('keda_lists');
  const { wait, active } = new QueueKeys(prefix).getKeys(RUNS_QUEUE);
  const queue = new Queue<RunJobData>(RUNS_QUEUE, { connection: redisOptions(TEST_REDIS_URL), prefix });
  const config = new AppConfig({ REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix, WORKER_CONCURRENCY: '2' });
  const runs = new BullRunQueue(queue, config, { watchQueue: () => undefined } as unknown as MetricsService, {} as RunEnds, {} as RunStore);
  const redis = new IORedis(TEST_REDIS_URL);
  const lengths = async () => ({ wait: await redis.llen(wait), active: await redis.llen(active) });

  afterAll(async () => {
    await runs.close();
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    redis.disconnect();
  });

  it('holds queued runs in the wait list and running ones in the active list', async () => {
    for (const runId of ['r1', 'r2', 'r3']) await runs.enqueue(runId);
    expect(await redis.type(wait)).toBe('list');
    expect(await lengths()).toEqual({ wait: 3, active: 0 });

    // a worker executing WORKER_CONCURRENCY (2) runs at once, held until released
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    runs.work({
      execute: async (runId) => {
        started.push(runId);
        await held;
        return { kind: 'ended' };
      },
      abandon: () => Promise.resolve(),
    });
    await waitUntil(async () => started.length === 2);
    expect(await redis.type(active)).toBe('list');
    expect(await lengths()).toEqual({ wait: 1, active: 2 });

    release();
    await waitUntil(async () => started.length === 3 && (await lengths()).active === 0);
    expect(await lengths()).toEqual({ wait: 0, active: 0 });
  });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 20));
  }
}
