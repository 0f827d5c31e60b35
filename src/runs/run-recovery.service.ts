import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';

import { RunRecords } from '../orchestrator/run-records.service';
import { RunQueue } from './run-queue';

const ORPHAN_AFTER_MS = 60_000;
const SWEEP_EVERY_MS = 30_000;

/**
 * An accepted run always reaches a final state: runs left queued or running by a crashed process (no live
 * session lease, untouched for a minute) are queued again and resume from their last checkpoint.
 */
@Injectable()
export class RunRecovery implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RunRecovery.name);
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly records: RunRecords,
    private readonly queue: RunQueue,
  ) {}

  onApplicationBootstrap(): void {
    // at start-up, inline runs of a previous process are orphans at once
    void this.sweep(this.queue.kind === 'inline' ? 0 : ORPHAN_AFTER_MS);
    this.timer = setInterval(() => void this.sweep(ORPHAN_AFTER_MS), SWEEP_EVERY_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

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
