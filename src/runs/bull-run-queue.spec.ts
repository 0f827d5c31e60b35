import type { Queue, Worker } from 'bullmq';

import { AppConfig } from '../config/app-config';
import type { MetricsService } from '../observability/metrics.service';
import { BullRunQueue } from './bull-run-queue';
import type { RunJobData } from './run.job';
import type { RunEnds } from './run-ends.service';
import type { RunStore } from './store/run-store';

/** BullRunQueue.close: BullMQ's worker close, bounded (a blocking client left reconnecting never ends: bullmq#4656). */
describe('BullRunQueue.close', () => {
  const config = new AppConfig({ RUN_SHUTDOWN_GRACE_MS: '1000' });
  const queue = { on: jest.fn() } as unknown as Queue<RunJobData>;
  const metrics = { watchQueue: jest.fn() } as unknown as MetricsService;

  function withWorker(close: () => Promise<void>) {
    const driver = new BullRunQueue(queue, config, metrics, {} as RunEnds, {} as RunStore);
    const worker = { close: jest.fn(close), disconnect: jest.fn(() => Promise.resolve()) };
    (driver as unknown as { worker: Worker<RunJobData> }).worker = worker as unknown as Worker<RunJobData>;
    return { driver, worker };
  }

  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('returns when the worker has closed, without disconnecting it by force', async () => {
    const { driver, worker } = withWorker(() => new Promise((r) => setTimeout(r, 800)));
    const closed = driver.close();
    await jest.advanceTimersByTimeAsync(800);
    await expect(closed).resolves.toBeUndefined();
    expect(worker.disconnect).not.toHaveBeenCalled();
  });

  it('disconnects the worker and goes on when its close has not settled after the grace and a margin', async () => {
    const { driver, worker } = withWorker(() => new Promise(() => undefined)); // never settles
    let done = false;
    const closed = driver.close().then(() => (done = true));
    await jest.advanceTimersByTimeAsync(1000 + 4900);
    expect(done).toBe(false); // still within RUN_SHUTDOWN_GRACE_MS + 5 s: running turns may be ending
    await jest.advanceTimersByTimeAsync(100);
    await closed;
    expect(worker.disconnect).toHaveBeenCalledTimes(1);
  });
});
