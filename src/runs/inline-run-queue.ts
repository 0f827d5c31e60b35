import { AsyncLocalStorage } from 'node:async_hooks';

import { Injectable, Logger } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { MetricsService } from '../observability/metrics.service';
import { inQueuedRunContext, type QueuedRunContext, queuedRunContext } from '../observability/queued-run-context';
import { type JobState, type RunHandler, RunQueue } from './run-queue';

/** A run whose session is busy tries again after this long, unless the session's turn ends first and wakes it. */
const PARKED_MS = 100;

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
  ) {
    super();
    metrics.watchQueue(async () => ({ waiting: this.waiting.length, active: this.active.size, delayed: this.parked.size, failed: 0 }));
  }

  work(handler: RunHandler): void {
    this.handler = handler;
    this.pump();
  }

  async enqueue(runId: string, opts: { delayMs?: number } = {}): Promise<void> {
    if (this.closed || this.active.has(runId) || this.waiting.includes(runId) || this.parked.has(runId)) return;
    const context = queuedRunContext();
    if (context) this.contexts.set(runId, context);
    if (opts.delayMs && opts.delayMs > 0) return this.park(runId, opts.delayMs);
    this.waiting.push(runId);
    setImmediate(() => this.pump());
  }

  async cancel(runId: string): Promise<void> {
    const i = this.waiting.indexOf(runId);
    if (i >= 0) this.waiting.splice(i, 1);
    clearTimeout(this.parked.get(runId));
    this.parked.delete(runId);
    this.contexts.delete(runId);
  }

  isLocal(runId: string): boolean {
    return this.active.has(runId) || this.waiting.includes(runId) || this.parked.has(runId);
  }

  async ready(): Promise<boolean> {
    return !this.closed;
  }

  /** Parked runs here try again after PARKED_MS (100 ms) anyway: cheap in one process, and fair to other sessions' runs. */
  async wake(): Promise<void> {}

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
    await Promise.allSettled([...this.inFlight]);
  }

  private park(runId: string, ms: number): void {
    const timer = setTimeout(() => {
      this.parked.delete(runId);
      if (this.closed) return;
      this.waiting.push(runId);
      this.pump();
    }, ms);
    this.parked.set(runId, timer);
  }

  private pump(): void {
    const handler = this.handler;
    if (!handler) return;
    while (!this.closed && this.active.size < this.config.workerConcurrency && this.waiting.length > 0) {
      const runId = this.waiting.shift()!;
      this.active.add(runId);
      const execution = () => inQueuedRunContext(this.contexts.get(runId), () => handler.execute(runId));
      const p = this.detached(execution)
        .then((outcome) => {
          if (outcome.kind === 'parked' && !this.closed) return this.park(runId, outcome.retryInMs ?? PARKED_MS);
          this.contexts.delete(runId);
        })
        .catch((err: Error) => {
          this.contexts.delete(runId);
          this.logger.error({ msg: 'queued run could not be executed', run_id: runId, err: err.message });
        })
        .finally(() => {
          this.active.delete(runId);
          this.inFlight.delete(p);
          this.pump();
        });
      this.inFlight.add(p);
    }
  }
}
