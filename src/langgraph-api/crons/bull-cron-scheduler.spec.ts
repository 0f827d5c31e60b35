import type { Worker } from 'bullmq';

import { AppConfig } from '../../config/app-config';
import { BullCronScheduler, type CronJobData } from './bull-cron-scheduler';
import type { CronRunner } from './cron-runner.service';
import type { CronsRepository } from './crons.repository';

/** the cron queue, as a Redis that stops answering leaves it: its close never settles unless told so */
const queue = { on: jest.fn(), close: jest.fn<Promise<void>, []>(), disconnect: jest.fn(() => Promise.resolve()) };
jest.mock('bullmq', () => ({ ...jest.requireActual('bullmq'), Queue: jest.fn(() => queue) }));

/** BullCronScheduler's shutdown: its worker's and queue's closes bounded like the run worker's (BullRunQueue.close). */
describe('BullCronScheduler shutdown', () => {
  const config = new AppConfig({ RUN_SHUTDOWN_GRACE_MS: '1000', REDIS_URL: 'redis://127.0.0.1:1' });

  function withWorker(close: () => Promise<void>) {
    const scheduler = new BullCronScheduler(config, {} as CronRunner, {} as CronsRepository);
    const worker = { close: jest.fn(close), disconnect: jest.fn(() => Promise.resolve()) };
    (scheduler as unknown as { worker: Worker<CronJobData> }).worker = worker as unknown as Worker<CronJobData>;
    return { scheduler, worker };
  }

  beforeEach(() => {
    jest.useFakeTimers();
    queue.close.mockReset().mockResolvedValue(undefined);
    queue.disconnect.mockClear();
  });
  afterEach(() => jest.useRealTimers());

  it('closes the worker and the queue without disconnecting them by force when they close', async () => {
    const { scheduler, worker } = withWorker(() => new Promise((r) => setTimeout(r, 300)));
    const closed = scheduler.onApplicationShutdown();
    await jest.advanceTimersByTimeAsync(300);
    await expect(closed).resolves.toBeUndefined();
    expect(worker.close).toHaveBeenCalledTimes(1);
    expect(queue.close).toHaveBeenCalledTimes(1);
    expect(worker.disconnect).not.toHaveBeenCalled();
    expect(queue.disconnect).not.toHaveBeenCalled();
  });

  it('disconnects a worker whose close hangs once the grace and a margin are over, and goes on', async () => {
    const { scheduler, worker } = withWorker(() => new Promise(() => undefined)); // never settles
    let done = false;
    const closed = scheduler.onApplicationShutdown().then(() => (done = true));
    await jest.advanceTimersByTimeAsync(1000 + 4900);
    expect(done).toBe(false); // still within RUN_SHUTDOWN_GRACE_MS + 5 s
    await jest.advanceTimersByTimeAsync(100);
    await closed;
    expect(worker.disconnect).toHaveBeenCalledTimes(1);
    expect(queue.close).toHaveBeenCalledTimes(1); // the queue is closed after it
  });

  it('does not hang on a queue whose close never settles either', async () => {
    queue.close.mockReturnValue(new Promise(() => undefined));
    const { scheduler } = withWorker(() => new Promise(() => undefined));
    let done = false;
    const closed = scheduler.onApplicationShutdown().then(() => (done = true));
    await jest.advanceTimersByTimeAsync(6000 + 5000);
    await closed;
    expect(done).toBe(true);
    expect(queue.disconnect).toHaveBeenCalledTimes(1);
  });
});
