import { AsyncLocalStorage } from 'node:async_hooks';

import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import type { ChatResult } from '../core/chat-result';
import { RunNotFoundException } from '../core/errors';
import { FINAL_STATUSES, type RunEntity } from '../database/entities';
import { inQueuedRunContext, queuedRunContext } from '../observability/queued-run-context';
import { RunCancellation } from '../runs/run-cancellation.service';
import { RUN_WORKER, type RunOutcome, RunQueue } from '../runs/run-queue';
import { RunStore } from '../runs/store/run-store';
import { AgentOrchestrator, type ExecuteOptions, RunHandedBack, RunSuperseded, SessionLeaseBusy } from './agent-orchestrator.service';
import { type LeasedThread, type RunHandle, runIdOf } from './run-handle';
import { RunOutcomes } from './run-outcomes.service';

/**
 * A run's progress row is written at most this often, the first time this long after it starts: a statement
 * per write on the run's connection pool, and a short run (two model calls) ends before anyone polls it.
 * Followers of the run get every step from the run event bus instead (`GET /v1/jobs/{id}/events`).
 */
const PROGRESS_WRITE_INTERVAL_MS = 1000;
/** A run handed back for a database outage is picked up again after this long; at shutdown at once (by another worker). */
const HANDED_BACK_MS = { shutdown: 0, other: 2000 };

/**
 * The one run driver: lease → execute → park or hand back → finish, for every path a run takes — queued runs
 * (the queue's worker loop calls `execute`), runs the accepting process executes itself (`startHere`: LangGraph
 * `wait`/`stream`), sync turns and streams (`runInRequest`). Cancellation signals, progress rows, waking the
 * session's next turn and graceful shutdown live here, once.
 */
@Injectable()
export class RunDriver implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RunDriver.name);
  /** aborted when the shutdown grace is over: running turns stop at a step boundary and are queued again */
  private readonly handBack = new AbortController();
  private readonly here = new Map<string, Promise<void>>();
  private closed = false;
  /** executions started here run outside the request's async context, then take the request's id and trace (as a job does) */
  private readonly detached = AsyncLocalStorage.snapshot();

  constructor(
    private readonly orchestrator: AgentOrchestrator,
    private readonly outcomes: RunOutcomes,
    private readonly queue: RunQueue,
    private readonly store: RunStore,
    private readonly cancellation: RunCancellation,
    private readonly config: AppConfig,
    @Inject(RUN_WORKER) private readonly worker: boolean,
  ) {}

  /** A process with a worker takes queued runs (always with the in-process queue: nobody else would). */
  onApplicationBootstrap(): void {
    if (this.queue.kind === 'inline' || this.worker) {
      this.queue.work({ execute: (runId) => this.execute({ runId }), abandon: (runId, reason) => this.outcomes.abandon(runId, reason) });
    }
  }

  /** SIGTERM: stop taking runs, give running turns RUN_SHUTDOWN_GRACE_MS, then hand the rest back at their last checkpoint. */
  async beforeApplicationShutdown(): Promise<void> {
    this.closed = true;
    const grace = setTimeout(() => this.handBack.abort(new Error('shutdown')), this.config.durability.shutdownGraceMs);
    try {
      await Promise.allSettled([this.queue.close(), ...this.here.values()]);
    } finally {
      clearTimeout(grace);
    }
  }

  /** A queued run, as the queue's worker loop hands it over: never waits for a busy session (it is parked instead). */
  async execute(handle: RunHandle): Promise<RunOutcome> {
    const runId = runIdOf(handle);
    let paused = false;
    try {
      paused = (await this.drive(handle, { leaseWait: 'defer', handBack: this.handBack.signal })).metadata?.approval_pending === true;
    } catch (err) {
      if (err instanceof SessionLeaseBusy) return { kind: 'parked', retryInMs: err.retryInMs, wakeOn: err.wakeOn };
      if (err instanceof RunHandedBack)
        return { kind: 'parked', retryInMs: HANDED_BACK_MS[err.reason === 'shutdown' ? 'shutdown' : 'other'] };
      if (err instanceof RunNotFoundException) return { kind: 'gone' }; // its session was deleted: nothing to run
      if (err instanceof RunSuperseded) return { kind: 'gone' }; // another attempt (worker) runs it now
      void this.wakeNext(runId); // failed without a recorded end: the session's next turn need not wait for the reconciler
      throw err;
    }
    void this.wakeNext(runId);
    return paused ? { kind: 'ended', paused } : { kind: 'ended' };
  }

  /** A turn answered in the request (`POST /v1/chat`, its stream): waits for a busy session instead of parking. */
  runInRequest(handle: RunHandle, opts: Pick<ExecuteOptions, 'onToken'> = {}): Promise<ChatResult> {
    return this.drive(handle, { ...opts, leaseWait: 'block' }).catch((err: Error) => {
      if (err instanceof RunSuperseded) return this.outcomes.resultOf(err.runId); // taken over elsewhere: its end answers
      throw err;
    });
  }

  /**
   * Whether a run submitted now would be executed here: with BullMQ and a worker in this process, at most
   * LOCAL_RUN_CONCURRENCY at a time (the in-process queue executes every run in this process anyway).
   */
  hasRoom(): boolean {
    return !this.closed && this.queue.kind === 'bullmq' && this.worker && this.here.size < this.config.localRunConcurrency;
  }

  /**
   * Executes an accepted run in this process at once, instead of a round through the queue (add, a worker's
   * fetch, lock, completion) — as the reference server runs `wait`/`stream` runs. A `queued` run only when there
   * is room (false: send it to the queue instead); one accepted `running` (it holds its lease: the caller asked
   * `hasRoom`) always. Durability does not depend on this process: the row is written first and the lease renewed
   * while it runs, so when this process dies the lease lapses and the reconciler queues the run again. A busy
   * session, a hand-back or an outage sends the run to the queue like any other.
   */
  startHere(handle: { accepted: RunEntity } | { leased: RunEntity; thread: LeasedThread }): boolean {
    const run = 'leased' in handle ? handle.leased : handle.accepted;
    if ('accepted' in handle && (!this.hasRoom() || run.input.start_at)) return false;
    const context = queuedRunContext(); // the run's span continues the request's trace, its lines carry the request's id
    const done = this.detached(() => inQueuedRunContext(context, () => this.executeHere(handle, run.id)));
    this.here.set(
      run.id,
      done.finally(() => this.here.delete(run.id)),
    );
    return true;
  }

  /** Resolves when this process's execution of the run is over (ended, or handed to the queue); null if none. */
  execution(runId: string): Promise<void> | null {
    return this.here.get(runId) ?? null;
  }

  private async executeHere(handle: RunHandle, runId: string): Promise<void> {
    const outcome = await this.execute(handle).catch((err: Error) => {
      // not ended and not queued: the reconciliation queues it once its lease has lapsed
      this.logger.error({ msg: 'run could not be executed here', run_id: runId, err: err.message });
      return null;
    });
    if (outcome?.kind !== 'parked') return;
    await this.queue.enqueue(runId, { delayMs: outcome.retryInMs ?? 0, wakeOn: outcome.wakeOn }).catch((err: Error) => {
      this.logger.warn({ msg: 'run not queued after a local attempt', run_id: runId, err: err.message }); // the reconciliation queues it later
    });
  }

  /** Every path's execution: the run's cancellation signal and progress rows around the orchestrator's turn. */
  private async drive(handle: RunHandle, opts: Pick<ExecuteOptions, 'leaseWait' | 'handBack' | 'onToken'>): Promise<ChatResult> {
    const runId = runIdOf(handle);
    const signal = this.cancellation.register(runId);
    // progress is written for runs that last: the first write comes after PROGRESS_WRITE_INTERVAL_MS
    let lastWrite = Date.now();
    try {
      return await this.orchestrator.execute(handle, {
        signal,
        leaseWait: opts.leaseWait,
        handBack: opts.handBack,
        onToken: opts.onToken,
        onProgress: (e) => {
          const now = Date.now();
          if (now - lastWrite < PROGRESS_WRITE_INTERVAL_MS) return;
          lastWrite = now;
          this.store
            .setProgress(runId, { node: e.node, step: e.step, at: new Date(now).toISOString() })
            .catch((err: Error) => this.logger.warn({ msg: 'progress not recorded', run_id: runId, err: err.message }));
        },
      });
    } catch (err) {
      if (err instanceof RunSuperseded) this.logger.warn({ msg: 'run superseded', run_id: runId, attempt: err.attempt });
      throw err;
    } finally {
      this.cancellation.unregister(runId);
    }
  }

  /** The session's next turn (parked) starts now instead of at its next check. */
  private async wakeNext(runId: string): Promise<void> {
    try {
      // usually no job is parked at all: one read of the queue instead of two statements after every run
      if (!(await this.queue.anyParked())) return;
      const run = await this.store.get(runId).catch(() => null);
      if (!run || !(FINAL_STATUSES.includes(run.status) || run.status === 'interrupted')) return;
      const next = await this.store.nextOfSession(run.sessionId, run.tenantId);
      if (next) await this.queue.wake(next);
    } catch (err) {
      this.logger.debug?.({ msg: 'next turn not woken', run_id: runId, err: (err as Error).message });
    }
  }
}
