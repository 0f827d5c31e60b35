import { AsyncLocalStorage } from 'node:async_hooks';

import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { MetricsService } from '../observability/metrics.service';
import { inQueuedRunContext, type QueuedRunContext, queuedRunContext } from '../observability/queued-run-context';
import { RunHandedBack, SessionLeaseBusy } from '../orchestrator/agent-orchestrator.service';
import { RunExecutor } from './run-executor.service';
import { type JobState, RunQueue } from './run-queue';

const PARKED_MS = 100;

/**
 * No Redis: queued runs execute in this process, at most WORKER_CONCURRENCY at a time, with the same
 * records and API as the BullMQ path. Runs left unfinished by a crash are picked up again by RunRecovery.
 */
@Injectable()
export class InlineRunQueue extends RunQueue implements BeforeApplicationShutdown {
  readonly kind = 'inline' as const;
  private readonly logger = new Logger(InlineRunQueue.name);
  private readonly waiting: string[] = [];
  private readonly active = new Set<string>();
  private readonly inFlight = new Set<Promise<unknown>>();
  /** runs whose session is busy: they wait here, not in a slot, and try again shortly */
  private readonly parked = new Map<string, NodeJS.Timeout>();
  private closed = false;
  private readonly handBack = new AbortController();
  /** the request each queued run came from (its id and trace), like a BullMQ job's data */
  private readonly contexts = new Map<string, QueuedRunContext>();
  /**
   * Runs start outside whatever request happened to call `pump` (another run's), in the context of the
   * queue's creation, and then take their own request's context.
   */
  private readonly detached = AsyncLocalStorage.snapshot();

  constructor(
    private readonly executor: RunExecutor,
    private readonly config: AppConfig,
    metrics: MetricsService,
  ) {
    super();
    metrics.watchQueue(async () => ({ waiting: this.waiting.length, active: this.active.size, delayed: this.parked.size, failed: 0 }));
  }

  async enqueue(runId: string, opts: { delayMs?: number } = {}): Promise<void> {
    if (this.closed || this.active.has(runId) || this.waiting.includes(runId) || this.parked.has(runId)) return;
    const context = queuedRunContext();
    if (context) this.contexts.set(runId, context);
    if (opts.delayMs && opts.delayMs > 0) return this.park(runId, opts.delayMs);
    this.waiting.push(runId);
    setImmediate(() => this.pump());
  }

  async remove(runId: string): Promise<void> {
    const i = this.waiting.indexOf(runId);
    if (i >= 0) this.waiting.splice(i, 1);
    this.contexts.delete(runId);
  }

  isLocal(runId: string): boolean {
    return this.active.has(runId) || this.waiting.includes(runId) || this.parked.has(runId);
  }

  async ready(): Promise<boolean> {
    return !this.closed;
  }

  async wake(): Promise<void> {
    /* inline runs wait for their session inside the executor */
  }

  async anyParked(): Promise<boolean> {
    return this.parked.size > 0;
  }

  async jobStates(runIds: string[]): Promise<Map<string, JobState>> {
    return new Map(runIds.map((id) => [id, this.isLocal(id) ? 'pending' : 'missing']));
  }

  /**
   * Let running turns finish for RUN_SHUTDOWN_GRACE_MS, then hand the rest back (`queued`, resumed from their
   * last checkpoint at the next start); unstarted ones stay queued in Postgres.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.closed = true;
    this.waiting.length = 0;
    for (const t of this.parked.values()) clearTimeout(t);
    this.parked.clear();
    const grace = setTimeout(() => this.handBack.abort(new Error('shutdown')), this.config.durability.shutdownGraceMs);
    try {
      await Promise.allSettled([...this.inFlight]);
    } finally {
      clearTimeout(grace);
    }
  }

  private park(runId: string, ms = PARKED_MS): void {
    const timer = setTimeout(() => {
      this.parked.delete(runId);
      if (this.closed) return;
      this.waiting.push(runId);
      this.pump();
    }, ms);
    this.parked.set(runId, timer);
  }

  private pump(): void {
    while (!this.closed && this.active.size < this.config.workerConcurrency && this.waiting.length > 0) {
      const runId = this.waiting.shift()!;
      this.active.add(runId);
      const execution = () =>
        inQueuedRunContext(this.contexts.get(runId), () =>
          this.executor.execute(runId, { leaseWait: 'defer', handBack: this.handBack.signal }),
        );
      const p = this.detached(execution)
        .then(() => this.contexts.delete(runId))
        .catch((err: Error) => {
          if (err instanceof SessionLeaseBusy) return this.park(runId, err.retryInMs ?? PARKED_MS);
          if (err instanceof RunHandedBack) return this.closed ? undefined : this.park(runId);
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
