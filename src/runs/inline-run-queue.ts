import { AsyncLocalStorage } from 'node:async_hooks';

import { Injectable, Logger } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { MetricsService } from '../observability/metrics.service';
import { inQueuedRunContext, type QueuedRunContext, queuedRunContext } from '../observability/queued-run-context';
import { EndWakeups } from './end-wakeups';
import { RunEnds, safetyNetMs } from './run-ends.service';
import { type EnqueueOptions, type JobState, type RunHandler, type RunOutcome, RunQueue } from './run-queue';

/**
 * A parked run with no time of its own tries again after about this long: the slow safety net. A run parked
 * behind its session's running turn is woken by that turn's end (EndWakeups), and `wake` wakes any at once.
 */
const PARKED_MS = 5000;

/**
 * The in-process driver (no Redis): queued runs execute in this process, at most WORKER_CONCURRENCY at a time,
 * with the same records and API as the BullMQ driver. A parked run waits in a timer, not in a slot. Runs left
 * unfinished by a crash are picked up again by the recovery sweep.
 */
@Injectable()
export class InlineRunQueue extends RunQueue {
  readonly kind = 'inline' as const;
  private readonly logger = new Logger(InlineRunQueue.name);
  private readonly waiting: string[] = [];
  private readonly active = new Set<string>();
  private readonly inFlight = new Set<Promise<unknown>>();
  /** runs whose session is busy (or that are not due yet): they wait here, not in a slot */
  private readonly parked = new Map<string, NodeJS.Timeout>();
  /** enqueued again while being executed here (a decision on a run still winding down its pause): run again after */
  private readonly again = new Set<string>();
  private readonly wakeups: EndWakeups;
  private closed = false;
  private handler?: RunHandler;
  /** the request each queued run came from (its id and trace), like a BullMQ job's data */
  private readonly contexts = new Map<string, QueuedRunContext>();
  /**
   * Runs start outside whatever request happened to call `pump` (another run's), in the context of the
   * queue's creation, and then take their own request's context.
   */
  private readonly detached = AsyncLocalStorage.snapshot();

  constructor(
    private readonly config: AppConfig,
    metrics: MetricsService,
    ends: RunEnds,
  ) {
    super();
    this.wakeups = new EndWakeups(ends, (runId) => void this.wake(runId));
    metrics.watchQueue(async () => ({ waiting: this.waiting.length, active: this.active.size, delayed: this.parked.size, failed: 0 }));
  }

  work(handler: RunHandler): void {
    this.handler = handler;
    this.pump();
  }

  async enqueue(runId: string, opts: EnqueueOptions = {}): Promise<void> {
    if (this.active.has(runId) && !this.closed) this.again.add(runId);
    if (this.closed || this.active.has(runId) || this.waiting.includes(runId) || this.parked.has(runId)) return;
    const context = queuedRunContext();
    if (context) this.contexts.set(runId, context);
    if (opts.delayMs && opts.delayMs > 0) return this.park(runId, opts.delayMs, opts.wakeOn);
    this.waiting.push(runId);
    setImmediate(() => this.pump());
  }

  async cancel(runId: string): Promise<void> {
    const i = this.waiting.indexOf(runId);
    if (i >= 0) this.waiting.splice(i, 1);
    clearTimeout(this.parked.get(runId));
    this.parked.delete(runId);
    this.wakeups.drop(runId);
    this.again.delete(runId);
    this.contexts.delete(runId);
  }

  isLocal(runId: string): boolean {
    return this.active.has(runId) || this.waiting.includes(runId) || this.parked.has(runId);
  }

  async ready(): Promise<boolean> {
    return !this.closed;
  }

  /** A parked run goes back in line now (the run it waited for has ended). */
  async wake(runId: string): Promise<void> {
    const timer = this.parked.get(runId);
    if (!timer || this.closed) return;
    clearTimeout(timer);
    this.unpark(runId);
  }

  async anyParked(): Promise<boolean> {
    return this.parked.size > 0;
  }

  async jobStates(runIds: string[]): Promise<Map<string, JobState>> {
    return new Map(runIds.map((id) => [id, this.isLocal(id) ? 'pending' : 'missing']));
  }

  /** Unstarted runs stay queued in Postgres (the next process's sweep takes them); running ones are waited for. */
  async close(): Promise<void> {
    this.closed = true;
    this.waiting.length = 0;
    for (const t of this.parked.values()) clearTimeout(t);
    this.parked.clear();
    this.wakeups.clear();
    this.again.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  /** Waits `ms` (or until `wakeOn` ends, or `wake`) outside the slots. */
  private park(runId: string, ms: number, wakeOn?: string): void {
    const timer = setTimeout(() => this.unpark(runId), ms);
    this.parked.set(runId, timer);
    if (wakeOn) this.wakeups.add(runId, wakeOn);
  }

  private unpark(runId: string): void {
    this.parked.delete(runId);
    this.wakeups.drop(runId);
    if (this.closed) return;
    this.waiting.push(runId);
    this.pump();
  }

  /** The slot is free: a parked run waits outside it, one enqueued again meanwhile goes back in line. */
  private settle(runId: string, outcome: RunOutcome): void {
    this.active.delete(runId);
    const again = this.again.delete(runId);
    if (this.closed) return void this.contexts.delete(runId);
    if (outcome.kind === 'parked') return this.park(runId, outcome.retryInMs ?? safetyNetMs(PARKED_MS), outcome.wakeOn);
    if (again) return void this.waiting.push(runId);
    this.contexts.delete(runId);
  }

  private pump(): void {
    const handler = this.handler;
    if (!handler) return;
    while (!this.closed && this.active.size < this.config.workerConcurrency && this.waiting.length > 0) {
      const runId = this.waiting.shift()!;
      this.active.add(runId);
      const execution = () => inQueuedRunContext(this.contexts.get(runId), () => handler.execute(runId));
      const p = this.detached(execution)
        .then(
          (outcome) => this.settle(runId, outcome),
          (err: Error) => {
            this.settle(runId, { kind: 'ended' });
            this.logger.error({ msg: 'queued run could not be executed', run_id: runId, err: err.message });
          },
        )
        .finally(() => {
          this.inFlight.delete(p);
          this.pump();
        });
      this.inFlight.add(p);
    }
  }
}
