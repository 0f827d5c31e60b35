import { AsyncLocalStorage } from 'node:async_hooks';

import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import type { RunEntity } from '../database/entities';
import { inQueuedRunContext, queuedRunContext } from '../observability/queued-run-context';
import { RunHandedBack, SessionLeaseBusy } from '../orchestrator/agent-orchestrator.service';
import { RunExecutor } from './run-executor.service';
import { RunQueue } from './run-queue';
import { RunStore } from './store/run-store';

/** A run handed back for a database outage is queued again after this long (as RunProcessor parks it). */
const HANDED_BACK_MS = 2000;

/**
 * Runs a client waits for (`runs.wait`, `runs.stream`) executed by the process that accepted them, right away,
 * instead of a round through the BullMQ queue (add, a worker's fetch, lock, completion: about forty Redis
 * commands and a worker poll per run) — as the reference server runs them in process.
 *
 * Only with BullMQ and a worker in this process (RUN_WORKER), at most LOCAL_RUN_CONCURRENCY at a time, and only
 * when the session's lease is free at once: a busy session, a shutdown hand-back or an outage sends the run to
 * the queue like any other. Durability does not depend on this process: the run row is written before the
 * execution starts (`queued`, or already `running` with its lease: RunsService.submit) and the session lease is
 * held (and renewed) while it runs, so when this process dies the lease lapses after RUN_LOCK_MS and
 * RunRecovery's reconciliation (RUN_RECONCILE_MS) finds an unfinished run without a job and queues it; it
 * resumes from its last checkpoint.
 */
@Injectable()
export class LocalRuns implements BeforeApplicationShutdown {
  private readonly logger = new Logger(LocalRuns.name);
  private readonly active = new Map<string, Promise<void>>();
  private readonly handBack = new AbortController();
  private closed = false;
  /** executions start outside the request's async context, then take the request's id and trace (as a job does) */
  private readonly detached = AsyncLocalStorage.snapshot();

  constructor(
    private readonly executor: RunExecutor,
    private readonly queue: RunQueue,
    private readonly records: RunStore,
    private readonly config: AppConfig,
  ) {}

  /** Whether a run submitted now would be executed here. */
  hasRoom(): boolean {
    return !this.closed && this.active.size < this.config.localRunConcurrency;
  }

  /**
   * Starts executing an accepted run here: a `queued` one when there is room (false: it should go to the queue
   * instead), and always one accepted `running` (it holds its session's lease: RunsService.submit asked hasRoom).
   */
  start(run: RunEntity, opts: { newThread?: boolean } = {}): boolean {
    const started = run.status === 'running';
    if (!started && (!this.hasRoom() || run.input.start_at)) return false;
    // like a queued job: the run's span continues the request's trace, its log lines carry the request's id
    const context = queuedRunContext();
    const done = this.detached(() => inQueuedRunContext(context, () => this.execute(run, opts.newThread))).finally(() =>
      this.active.delete(run.id),
    );
    this.active.set(run.id, done);
    return true;
  }

  /** Resolves when this process's execution of the run is over (ended, or handed to the queue); null if none. */
  execution(runId: string): Promise<void> | null {
    return this.active.get(runId) ?? null;
  }

  /** SIGTERM: running turns get RUN_SHUTDOWN_GRACE_MS, then are handed back (and queued for another worker). */
  async beforeApplicationShutdown(): Promise<void> {
    this.closed = true;
    const grace = setTimeout(() => this.handBack.abort(new Error('shutdown')), this.config.durability.shutdownGraceMs);
    try {
      await Promise.allSettled([...this.active.values()]);
    } finally {
      clearTimeout(grace);
    }
  }

  private async execute(run: RunEntity, newThread?: boolean): Promise<void> {
    try {
      await this.executor.execute(run.id, {
        leaseWait: 'defer',
        handBack: this.handBack.signal,
        accepted: run,
        startedAtAccept: run.status === 'running',
        newThread,
      });
    } catch (err) {
      if (err instanceof SessionLeaseBusy) return this.requeue(run.id, err.retryInMs ?? 0);
      if (err instanceof RunHandedBack) return this.requeue(run.id, err.reason === 'shutdown' ? 0 : HANDED_BACK_MS);
      // not ended and not queued: the reconciliation queues it once its lease has lapsed
      this.logger.error({ msg: 'run could not be executed here', run_id: run.id, err: (err as Error).message });
      return;
    }
    await this.wakeNext(run);
  }

  private async requeue(runId: string, delayMs: number): Promise<void> {
    await this.queue.enqueue(runId, { delayMs }).catch((err: Error) => {
      // the reconciliation queues it later
      this.logger.warn({ msg: 'run not queued after a local attempt', run_id: runId, err: err.message });
    });
  }

  /** The session's next turn (an `enqueue` run parked while this one ran) starts now instead of at its next check. */
  private async wakeNext(run: RunEntity): Promise<void> {
    try {
      // usually no job is parked at all: one Redis read instead of a statement after every run
      if (!(await this.queue.anyParked())) return;
      const next = await this.records.nextOfSession(run.sessionId, run.tenantId);
      if (next) await this.queue.wake(next);
    } catch (err) {
      this.logger.debug?.({ msg: 'next turn not woken', run_id: run.id, err: (err as Error).message });
    }
  }
}
