import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DelayedError, type Job, Worker } from 'bullmq';

import { AppConfig } from '../config/app-config';
import { redisOptions } from '../config/redis-options';
import { RunNotFoundException } from '../core/errors';
import { inQueuedRunContext } from '../observability/queued-run-context';
import { AgentOrchestrator, RunHandedBack, SessionLeaseBusy } from '../orchestrator/agent-orchestrator.service';
import { DurableRuns } from './records/durable-runs.repository';
import { type RunJobData, RUNS_QUEUE } from './run.job';
import { RunExecutor } from './run-executor.service';
import { RunQueue } from './run-queue';

/** A job whose session is busy is parked this long (or until the session's running turn ends and wakes it). */
const PARKED_MS = 1000;
/** A handed-back job (shutdown, database outage) is picked up again after this long. */
const HANDED_BACK_MS = { shutdown: 0, other: 2000 };

/**
 * The BullMQ worker: thin, and safe to run twice (an ended run returns its stored result). A worker that dies
 * stops renewing its job lock; after RUN_LOCK_MS + RUN_STALLED_CHECK_MS another worker takes the job over and
 * the run resumes from its last checkpoint. A job whose session is busy does not hold a slot: it is parked
 * (delayed) and woken when the session's turn ends. On shutdown the worker stops taking jobs, lets running
 * turns finish for RUN_SHUTDOWN_GRACE_MS and hands the rest back at their last checkpoint.
 */
@Injectable()
export class RunProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RunProcessor.name);
  private worker?: Worker<RunJobData>;
  private readonly handBack = new AbortController();

  constructor(
    private readonly executor: RunExecutor,
    private readonly orchestrator: AgentOrchestrator,
    private readonly durable: DurableRuns,
    private readonly queue: RunQueue,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.worker = new Worker<RunJobData>(RUNS_QUEUE, (job, token) => this.process(job, token), {
      connection: redisOptions(this.config.redisUrl!),
      prefix: this.config.queuePrefix,
      concurrency: this.config.workerConcurrency,
      lockDuration: this.config.runLockMs,
      stalledInterval: this.config.runStalledCheckMs,
      // the run row counts starts (RUN_MAX_ATTEMPTS) and ends a crashing run; BullMQ's limit is the backstop
      maxStalledCount: this.config.durability.maxAttempts,
    });
    this.worker.on('error', (err) => this.logger.warn({ msg: 'worker error', err: err.message }));
    this.worker.on('failed', (job, err) => void this.onFailed(job, err));
  }

  /** SIGTERM: stop taking jobs, give running turns the grace period, then hand them back. */
  async beforeApplicationShutdown(): Promise<void> {
    if (!this.worker) return;
    const closing = this.worker.close();
    const grace = setTimeout(() => this.handBack.abort(new Error('shutdown')), this.config.durability.shutdownGraceMs);
    try {
      await closing;
    } finally {
      clearTimeout(grace);
    }
  }

  async process(job: Job<RunJobData>, token?: string) {
    const runId = job.data.runId;
    try {
      // the run's span continues the trace of the request that queued it, its lines carry that request's id
      const result = await inQueuedRunContext(job.data.context, () =>
        this.executor.execute(runId, { leaseWait: 'defer', handBack: this.handBack.signal }),
      );
      return { status: result.error ? 'failed' : 'completed' };
    } catch (err) {
      if (err instanceof SessionLeaseBusy) return this.park(job, token, err.retryInMs ?? PARKED_MS);
      if (err instanceof RunHandedBack)
        return this.park(job, token, err.reason === 'shutdown' ? HANDED_BACK_MS.shutdown : HANDED_BACK_MS.other);
      if (err instanceof RunNotFoundException) return { status: 'gone' }; // its session was deleted: nothing to run
      throw err;
    } finally {
      void this.wakeNext(runId);
    }
  }

  /** Back to the queue without counting an attempt and without holding this slot. */
  private async park(job: Job<RunJobData>, token: string | undefined, ms: number): Promise<never> {
    await job.moveToDelayed(Date.now() + ms, token);
    throw new DelayedError();
  }

  /** The session's next turn (parked) starts now instead of at its next check. */
  private async wakeNext(runId: string): Promise<void> {
    try {
      // usually no job is parked at all: one Redis read instead of two statements after every run
      if (!(await this.queue.anyParked())) return;
      const run = await this.orchestrator.peek(runId);
      if (!run || !['completed', 'failed', 'cancelled', 'interrupted'].includes(run.status)) return;
      const next = await this.durable.nextOfSession(run.sessionId, run.tenantId);
      if (next) await this.queue.wake(next);
    } catch (err) {
      this.logger.debug?.({ msg: 'next turn not woken', run_id: runId, err: (err as Error).message });
    }
  }

  /** A job that used up its attempts: its run ends `failed` with the error (the job stays for inspection). */
  private async onFailed(job: Job<RunJobData> | undefined, err: Error): Promise<void> {
    if (!job || job.attemptsMade < (job.opts.attempts ?? 1)) return;
    await this.orchestrator
      .abandon(job.data.runId, err.message)
      .catch((e: Error) => this.logger.warn({ msg: 'failed run not recorded', run_id: job.data.runId, err: e.message }));
  }
}
