import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';

import { SessionStore, type SweepResult } from './session-store';
import { ThreadRetention } from './thread-retention';

/** Batches of one sweep, at most: a backlog larger than this waits for the next interval. */
const MAX_BATCHES_PER_SWEEP = 100;

/**
 * The retention sweeper (docs/retention.md): every API process and worker runs its timer, every
 * ThreadRetention.sweepIntervalMs; each sweep deletes expired threads (or cuts `keep_latest` ones to their latest
 * checkpoint) through SessionStore.sweepExpired, in batches of at most `sweepLimit`, each batch one transaction under
 * the cluster's sweep lock — so one process of the cluster sweeps at a time, the others find the lock taken and
 * wait for their next tick. Threads with a run in flight are skipped, never deleted.
 */
@Injectable()
export class RetentionSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RetentionSweeper.name);
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<SweepResult>;

  constructor(
    private readonly sessions: SessionStore,
    private readonly retention: ThreadRetention,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(
      () => void this.sweep().catch((e: unknown) => this.logger.warn(`retention sweep failed: ${String(e)}`)),
      this.retention.sweepIntervalMs,
    );
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping?.catch(() => undefined);
  }

  /**
   * One sweep: batches until one is not full (or another process holds the lock); what this process swept. A
   * sweep still running when the timer fires again is not started twice.
   */
  sweep(): Promise<SweepResult> {
    this.sweeping ??= this.sweepBatches().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweepBatches(): Promise<SweepResult> {
    const total: SweepResult = { deleted: [], pruned: [] };
    for (let i = 0; i < MAX_BATCHES_PER_SWEEP; i++) {
      const batch = await this.sessions.sweepExpired(this.retention.sweepLimit);
      if (!batch) break;
      total.deleted.push(...batch.deleted);
      total.pruned.push(...batch.pruned);
      if (batch.deleted.length + batch.pruned.length < this.retention.sweepLimit) break;
    }
    if (total.deleted.length || total.pruned.length) {
      this.logger.log(`retention sweep: ${total.deleted.length} thread(s) deleted, ${total.pruned.length} cut to their latest checkpoint`);
    }
    return total;
  }
}
