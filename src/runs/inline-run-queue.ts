import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { RunExecutor } from './run-executor.service';
import { RunQueue } from './run-queue';

/**
 * No Redis: queued runs execute in this process, at most WORKER_CONCURRENCY at a time, with the same
 * records and API as the BullMQ path. Runs left unfinished by a crash are picked up again by RunRecovery.
 */
@Injectable()
export class InlineRunQueue extends RunQueue implements OnApplicationShutdown {
  readonly kind = 'inline' as const;
  private readonly logger = new Logger(InlineRunQueue.name);
  private readonly waiting: string[] = [];
  private readonly active = new Set<string>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;

  constructor(
    private readonly executor: RunExecutor,
    private readonly config: AppConfig,
  ) {
    super();
  }

  async enqueue(runId: string): Promise<void> {
    if (this.closed || this.active.has(runId) || this.waiting.includes(runId)) return;
    this.waiting.push(runId);
    setImmediate(() => this.pump());
  }

  async remove(runId: string): Promise<void> {
    const i = this.waiting.indexOf(runId);
    if (i >= 0) this.waiting.splice(i, 1);
  }

  isLocal(runId: string): boolean {
    return this.active.has(runId) || this.waiting.includes(runId);
  }

  async ready(): Promise<boolean> {
    return !this.closed;
  }

  /** Let running turns finish (bounded); unstarted ones stay queued in Postgres for the next start. */
  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    this.waiting.length = 0;
    const timeout = new Promise((r) => setTimeout(r, 10_000).unref());
    await Promise.race([Promise.allSettled([...this.inFlight]), timeout]);
  }

  private pump(): void {
    while (!this.closed && this.active.size < this.config.workerConcurrency && this.waiting.length > 0) {
      const runId = this.waiting.shift()!;
      this.active.add(runId);
      const p = this.executor
        .execute(runId)
        .catch((err: Error) => this.logger.error({ msg: 'queued run could not be executed', run_id: runId, err: err.message }))
        .finally(() => {
          this.active.delete(runId);
          this.inFlight.delete(p);
          this.pump();
        });
      this.inFlight.add(p);
    }
  }
}
