import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { MetricsService } from '../observability/metrics.service';
import { RunQueue } from '../runs/run-queue';
import { RunStore } from '../runs/store/run-store';
import { RunOutcomes } from './run-outcomes.service';

const INLINE_ORPHAN_AFTER_MS = 60_000;
/** a run accepted this recently may still be on its way into the queue */
const MIN_GRACE_MS = 2000;

/**
 * An accepted run always reaches a final state; the runs table is the source of truth.
 * With BullMQ, every RUN_RECONCILE_MS a worker compares the unfinished runs nobody holds a lease for with the
 * queue: a run without a job (Redis flushed or restarted, a lost enqueue) is enqueued again and resumes from
 * its last checkpoint; a run whose job failed for good ends `failed`. Without Redis, runs left by a previous
 * process are executed again at start-up.
 */
@Injectable()
export class RunRecovery implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RunRecovery.name);
  private timer?: NodeJS.Timeout;
  private busy = false;

  constructor(
    private readonly records: RunStore,
    private readonly outcomes: RunOutcomes,
    private readonly queue: RunQueue,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

  onApplicationBootstrap(): void {
    if (this.queue.kind === 'inline') {
      // at start-up, inline runs of a previous process are orphans at once
      void this.sweep(0);
      this.timer = setInterval(() => void this.sweep(INLINE_ORPHAN_AFTER_MS), INLINE_ORPHAN_AFTER_MS / 2).unref();
      return;
    }
    void this.reconcile();
    this.timer = setInterval(() => void this.reconcile(), this.config.durability.reconcileMs).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One reconciliation pass (BullMQ): returns how many runs were enqueued again or ended. */
  async reconcile(): Promise<number> {
    if (this.busy) return 0;
    this.busy = true;
    let fixed = 0;
    try {
      const grace = Math.max(MIN_GRACE_MS, this.config.durability.reconcileMs);
      const runs = await this.records.unfinished(grace, this.config.runTimeoutMs * 2);
      const states = await this.queue.jobStates(runs.map((r) => r.id));
      for (const run of runs) {
        const state = states.get(run.id) ?? 'missing';
        if (state === 'pending') continue;
        if (state === 'failed') {
          await this.outcomes.abandon(run.id, 'its job failed');
        } else {
          if (state === 'completed') await this.queue.cancel(run.id); // its finished job, so the run can be enqueued again
          await this.queue.enqueue(run.id);
        }
        this.metrics.runRecoveries.inc({ event: state === 'failed' ? 'exhausted' : 'reconciled' });
        fixed++;
      }
      if (fixed) this.logger.warn({ msg: 'reconciled runs without a job', count: fixed });
    } catch (err) {
      this.logger.warn({ msg: 'reconciliation failed', err: (err as Error).message });
    } finally {
      this.busy = false;
    }
    return fixed;
  }

  /** Inline queue: re-queue runs left queued or running by a crashed process. */
  async sweep(olderThanMs: number): Promise<number> {
    try {
      const orphans = (await this.records.orphans(olderThanMs)).filter((r) => !this.queue.isLocal(r.id));
      for (const run of orphans) await this.queue.enqueue(run.id);
      if (orphans.length) this.logger.warn({ msg: 're-queued unfinished runs', count: orphans.length });
      return orphans.length;
    } catch (err) {
      this.logger.warn({ msg: 'recovery sweep failed', err: (err as Error).message });
      return 0;
    }
  }
}
