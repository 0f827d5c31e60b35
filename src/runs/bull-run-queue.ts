import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';

import { AppConfig } from '../config/app-config';
import { QueueUnavailableException } from '../core/errors';
import { GroupCommit } from '../database/group-commit';
import { MetricsService, type QueueState } from '../observability/metrics.service';
import { queuedRunContext } from '../observability/queued-run-context';
import { RUN_JOB, RUN_JOB_OPTIONS, type RunJobData, RUNS_QUEUE } from './run.job';
import { type JobState, RunQueue } from './run-queue';

const ENQUEUE_TIMEOUT_MS = 3000;

/** The part of the queue's ioredis client the bulk job-state check uses. */
interface RedisPipelining {
  pipeline(): {
    exists(key: string): unknown;
    zscore(key: string, member: string): unknown;
    exec(): Promise<Array<[Error | null, unknown]> | null>;
  };
}

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

  /** Jobs submitted while an add is out go in the next `addBulk` together (one round trip for a burst). */
  private readonly adds = new GroupCommit<{ runId: string; context?: RunJobData['context']; delayMs?: number }, unknown>((jobs) =>
    this.queue.addBulk(
      jobs.map(({ runId, context, delayMs }) => ({
        name: RUN_JOB,
        data: { runId, ...(context ? { context } : {}) },
        opts: {
          ...RUN_JOB_OPTIONS,
          attempts: this.config.durability.maxAttempts,
          jobId: runId,
          ...(delayMs && delayMs > 0 ? { delay: delayMs } : {}),
        },
      })),
    ),
  );

  async enqueue(runId: string, opts: { delayMs?: number } = {}): Promise<void> {
    const client = (await this.queue.getBackend().connection.client) as unknown as { status: string; ping(): Promise<string> };
    if (client.status !== 'ready') throw new QueueUnavailableException(`redis connection is ${client.status}`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new QueueUnavailableException('redis did not answer in time')), ENQUEUE_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.adds.submit({ runId, context: queuedRunContext(), delayMs: opts.delayMs }), timeout]);
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

  /** One ZCARD of the delayed set: a parked job is a delayed one (`moveToDelayed`), and only those are woken. */
  async anyParked(): Promise<boolean> {
    return (await this.queue.getDelayedCount()) > 0;
  }

  /**
   * The reconciler looks at every run queued for a while, which under a backlog is hundreds per pass: one
   * pipeline (job hash exists? in `completed`? in `failed`?) answers them in one round trip, where BullMQ's
   * per-job `getState` is a round trip each and scans the wait list (LPOS). A job that exists and has not
   * finished is pending (waiting, active, delayed, prioritized). Only a run without a job hash gets the
   * exact check before it counts as missing.
   */
  async jobStates(runIds: string[]): Promise<Map<string, JobState>> {
    const states = new Map<string, JobState>();
    if (runIds.length === 0) return states;
    const client = (await this.queue.getBackend().connection.client) as unknown as RedisPipelining;
    const p = client.pipeline();
    for (const id of runIds) {
      p.exists(this.queue.toKey(id));
      p.zscore(this.queue.toKey('completed'), id);
      p.zscore(this.queue.toKey('failed'), id);
    }
    const replies = (await p.exec()) ?? [];
    const failed = replies.find(([err]) => err);
    if (failed || replies.length !== runIds.length * 3) throw failed?.[0] ?? new Error('job states: pipeline did not answer');
    for (const [i, id] of runIds.entries()) {
      const [exists, completed, failedAt] = replies.slice(i * 3, i * 3 + 3).map(([, value]) => value);
      if (failedAt !== null) states.set(id, 'failed');
      else if (completed !== null) states.set(id, 'completed');
      else if (exists === 1) states.set(id, 'pending');
      else states.set(id, await this.jobState(id));
    }
    return states;
  }

  private async jobState(runId: string): Promise<JobState> {
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
