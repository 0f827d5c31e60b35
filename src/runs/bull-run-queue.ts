import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';

import { QueueUnavailableException } from '../common/domain.exception';
import { AppConfig } from '../config/app-config';
import { MetricsService, type QueueState } from '../observability/metrics.service';
import { queuedRunContext } from '../observability/queued-run-context';
import { RUN_JOB, RUN_JOB_OPTIONS, type RunJobData, RUNS_QUEUE } from './run.job';
import { RunQueue } from './run-queue';

const ENQUEUE_TIMEOUT_MS = 3000;

/** The producer: the only place that calls `queue.add`. The job id is the run id, so re-adding is harmless. */
@Injectable()
export class BullRunQueue extends RunQueue {
  readonly kind = 'bullmq' as const;

  constructor(
    @InjectQueue(RUNS_QUEUE) private readonly queue: Queue<RunJobData>,
    private readonly config: AppConfig,
    metrics: MetricsService,
  ) {
    super();
    metrics.watchQueue(() => this.queue.getJobCounts('waiting', 'active', 'delayed', 'failed') as Promise<Record<QueueState, number>>);
  }

  async enqueue(runId: string, opts: { delayMs?: number } = {}): Promise<void> {
    const client = (await this.queue.getBackend().connection.client) as unknown as { status: string; ping(): Promise<string> };
    if (client.status !== 'ready') throw new QueueUnavailableException(`redis connection is ${client.status}`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new QueueUnavailableException('redis did not answer in time')), ENQUEUE_TIMEOUT_MS);
    });
    const context = queuedRunContext();
    try {
      await Promise.race([
        this.queue.add(
          RUN_JOB,
          { runId, ...(context ? { context } : {}) },
          {
            ...RUN_JOB_OPTIONS,
            attempts: this.config.durability.maxAttempts,
            jobId: runId,
            ...(opts.delayMs && opts.delayMs > 0 ? { delay: opts.delayMs } : {}),
          },
        ),
        timeout,
      ]);
    } catch (err) {
      if (err instanceof QueueUnavailableException) throw err;
      throw new QueueUnavailableException((err as Error).message);
    } finally {
      clearTimeout(timer);
    }
  }

  async remove(runId: string): Promise<void> {
    await this.queue.remove(runId).catch(() => 0);
  }

  async wake(runId: string): Promise<void> {
    const job = await this.queue.getJob(runId);
    if (job && (await job.isDelayed())) await job.promote().catch(() => undefined);
  }

  async jobState(runId: string): Promise<'missing' | 'pending' | 'failed' | 'completed'> {
    const state = await this.queue.getJobState(runId);
    if (state === 'unknown') return 'missing';
    if (state === 'failed' || state === 'completed') return state;
    return 'pending';
  }

  /** Drop a finished job so the run can be enqueued again under its id. */
  async forget(runId: string): Promise<void> {
    await this.queue.remove(runId).catch(() => 0);
  }

  isLocal(): boolean {
    return false;
  }

  async ready(): Promise<boolean> {
    try {
      const client = (await this.queue.getBackend().connection.client) as unknown as { status: string; ping(): Promise<string> };
      return client.status === 'ready' && (await client.ping()) === 'PONG';
    } catch {
      return false;
    }
  }
}
