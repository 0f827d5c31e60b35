import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { DelayedError, type Job, type Queue, Worker } from 'bullmq';

import { AppConfig } from '../config/app-config';
import { redisOptions } from '../config/redis-options';
import { QueueUnavailableException } from '../core/errors';
import { GroupCommit } from '../database/group-commit';
import { MetricsService, type QueueState } from '../observability/metrics.service';
import { inQueuedRunContext, queuedRunContext } from '../observability/queued-run-context';
import { CLOSE_MARGIN_MS, closeWithin } from './bounded-close';
import { EndWakeups } from './end-wakeups';
import { RUN_JOB, RUN_JOB_OPTIONS, type RunJobData, RUNS_QUEUE } from './run.job';
import { RunEnds, safetyNetMs } from './run-ends.service';
import { type EnqueueOptions, type JobState, type RunHandler, RunQueue } from './run-queue';
import { RunStore } from './store/run-store';

const ENQUEUE_TIMEOUT_MS = 3000;
/**
 * A parked job with no time of its own is delayed about this long: the slow safety net. A job parked behind its
 * session's running turn is promoted when that turn's `end` reaches this process (EndWakeups), whichever
 * worker ran it.
 */
const PARKED_MS = 5000;

/**
 * How often BullMQ looks for stalled jobs, so that a killed worker's run starts again within RUN_LOCK_MS +
 * RUN_STALLED_CHECK_MS. Its lock lapses at most RUN_LOCK_MS after the kill (it was renewed at most then); the
 * job goes back to wait at the first check after that (an earlier one marked it). A check sets a gate for the
 * check interval, shared by all workers, and a worker's next check comes just after its own gate expires — or,
 * when the two meet within Redis's millisecond, one interval later: checks are one to two intervals apart.
 * Checking every RUN_STALLED_CHECK_MS could spend twice the bound's share on that wait (bench/takeover.ts at the
 * defaults: the job was taken up to 3 s after its lock lapsed; every 1.25 s: up to 2.5 s). Every quarter of it
 * waits at most half, leaving the other half for the next worker to take the job and the session. A check is
 * one short script for the whole queue.
 */
export function stalledCheckEvery(runStalledCheckMs: number): number {
  return Math.max(50, Math.floor(runStalledCheckMs / 4));
}

/** The part of the queue's ioredis client the bulk job-state check uses. */
interface RedisPipelining {
  pipeline(): {
    exists(key: string): unknown;
    zscore(key: string, member: string): unknown;
    exec(): Promise<Array<[Error | null, unknown]> | null>;
  };
}

/**
 * The BullMQ driver. Producer: the only place that calls `queue.add`; the job id is the run id, so re-adding is
 * harmless. Worker (`work`, in processes that run one): thin — the run driver executes the run; a job whose run
 * is parked (busy session, not due, handed back) goes back to the delayed set without counting an attempt or
 * holding a slot. A worker that dies stops renewing its job lock; within RUN_LOCK_MS + RUN_STALLED_CHECK_MS another
 * worker takes the job over and the run resumes from its last checkpoint (see `stalledCheckEvery`).
 */
@Injectable()
export class BullRunQueue extends RunQueue {
  readonly kind = 'bullmq' as const;
  private readonly logger = new Logger(BullRunQueue.name);
  private worker?: Worker<RunJobData>;
  private readonly wakeups: EndWakeups;

  constructor(
    @InjectQueue(RUNS_QUEUE) private readonly queue: Queue<RunJobData>,
    private readonly config: AppConfig,
    metrics: MetricsService,
    ends: RunEnds,
    private readonly records: RunStore,
  ) {
    super();
    this.wakeups = new EndWakeups(ends, (runId) => void this.wake(runId).catch(() => undefined));
    // without a listener BullMQ prints every reconnect error of a Redis outage or failover to stderr
    queue.on('error', (err) => this.logger.warn({ msg: 'queue error', err: err.message }));
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

  async enqueue(runId: string, opts: EnqueueOptions = {}): Promise<void> {
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
    if (opts.wakeOn && opts.delayMs) this.wakeups.add(runId, opts.wakeOn);
  }

  async cancel(runId: string): Promise<void> {
    this.wakeups.drop(runId);
    await this.queue.remove(runId).catch(() => 0);
  }

  work(handler: RunHandler): void {
    this.worker = new Worker<RunJobData>(RUNS_QUEUE, (job, token) => this.process(handler, job, token), {
      connection: redisOptions(this.config),
      prefix: this.config.queuePrefix,
      concurrency: this.config.workerConcurrency,
      lockDuration: this.config.runLockMs,
      // renewed every quarter of it, as the session lease is (BullMQ's default, half, lets a busy but live worker's
      // lock lapse after half of it without an answer; the stalled check, frequent below, would then take its job)
      lockRenewTime: Math.floor(this.config.runLockMs / 4),
      stalledInterval: stalledCheckEvery(this.config.runStalledCheckMs),
      // the run row counts starts (RUN_MAX_ATTEMPTS) and ends a crashing run; BullMQ's limit is the backstop
      maxStalledCount: this.config.durability.maxAttempts,
    });
    this.worker.on('error', (err) => this.logger.warn({ msg: 'worker error', err: err.message }));
    this.worker.on('completed', (job, value: { status?: string } | undefined) => {
      if (value?.status === 'paused') void this.requeueIfDecided(job.data.runId);
    });
    this.worker.on('failed', (job, err) => {
      // a job that used up its attempts: its run ends `failed` with the error (the job stays for inspection)
      if (!job || job.attemptsMade < (job.opts.attempts ?? 1)) return;
      handler
        .abandon(job.data.runId, err.message)
        .catch((e: Error) => this.logger.warn({ msg: 'failed run not recorded', run_id: job.data.runId, err: e.message }));
    });
  }

  /** Stops taking jobs and waits for the active ones (the run driver hands them back when its grace is over). */
  /**
   * Closes the worker once its running jobs are over (RunDriver ends or hands them back within
   * RUN_SHUTDOWN_GRACE_MS). Bounded: BullMQ's close waits for its blocking client's `end`, which a client left
   * reconnecting (after a Redis cut) may never emit (taskforcesh/bullmq#4656, open) — a shutdown that would hang.
   * Past the grace and a margin, the worker's Redis clients are disconnected and shutdown goes on.
   */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.wakeups.clear();
    await closeWithin(worker, this.config.durability.shutdownGraceMs + CLOSE_MARGIN_MS, (waitedMs) =>
      this.logger.warn({ msg: 'queue worker not closed in time: its Redis clients are disconnected', waited_ms: waitedMs }),
    );
  }

  private async process(handler: RunHandler, job: Job<RunJobData>, token?: string): Promise<{ status: string }> {
    // the run's span continues the trace of the request that queued it, its lines carry that request's id
    const runId = job.data.runId;
    this.wakeups.drop(runId); // taken: whatever it was parked for is looked at again now
    const outcome = await inQueuedRunContext(job.data.context, () => handler.execute(runId));
    if (outcome.kind === 'ended' && outcome.paused) return { status: 'paused' };
    if (outcome.kind !== 'parked') return { status: outcome.kind };
    await job.moveToDelayed(Date.now() + (outcome.retryInMs ?? safetyNetMs(PARKED_MS)), token);
    if (outcome.wakeOn) this.wakeups.add(runId, outcome.wakeOn);
    throw new DelayedError();
  }

  /**
   * A run that paused for an approval: a decision recorded while its job was still active could not queue it
   * (the job id is the run id), so once the job is over, a run decided meanwhile is queued again here.
   */
  private async requeueIfDecided(runId: string): Promise<void> {
    try {
      if ((await this.records.get(runId)).status !== 'queued') return;
      await this.cancel(runId);
      await this.enqueue(runId);
    } catch (err) {
      this.logger.warn({ msg: 'decided run not queued again (the reconciler will)', run_id: runId, err: (err as Error).message });
    }
  }

  async wake(runId: string): Promise<void> {
    const job = await this.queue.getJob(runId);
    if (job && (await job.isDelayed())) await job.promote().catch(() => undefined);
  }

  /**
   * One ZCARD of the delayed set: a parked job is a delayed one (`moveToDelayed`), and only those are woken. Asked
   * after every run, so sent as the command itself: BullMQ's `getDelayedCount` runs its counting script for it,
   * about a third more of the worker's CPU a call and a script instead of one O(1) command in Redis.
   */
  async anyParked(): Promise<boolean> {
    const client = (await this.queue.getBackend().connection.client) as unknown as { zcard(key: string): Promise<number> };
    return (await client.zcard(this.queue.toKey('delayed'))) > 0;
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

  /** A finished job is removed the same way as an unstarted one. */
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
