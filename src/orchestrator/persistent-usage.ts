import { Logger } from '@nestjs/common';

import { type ModelCallRecord, UsageCollector } from '../llm/usage-collector';
import type { UsageTotals } from './durable-runs.repository';

/**
 * A run's usage across attempts: the totals of earlier attempts (read from the run row when this attempt
 * started) plus every model call of this one, written to the row after each call — so a worker that dies
 * after a model call has still counted it, and the attempt that resumes adds to it.
 */
export class PersistentUsageCollector extends UsageCollector {
  private readonly logger = new Logger(PersistentUsageCollector.name);
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly base: UsageTotals,
    private readonly save: (totals: UsageTotals) => Promise<void>,
  ) {
    super();
  }

  override record(call: ModelCallRecord): void {
    super.record(call);
    if (call.cached) return;
    const totals = this.runTotals;
    // writes are chained, so they land in order (each carries the absolute totals)
    this.chain = this.chain
      .then(() => this.save(totals))
      .catch((err: Error) => this.logger.warn({ msg: 'usage not recorded yet', err: err.message }));
  }

  /** Earlier attempts + this one. */
  get runTotals(): UsageTotals {
    const t = this.totals;
    return {
      calls: this.base.calls + t.calls,
      promptTokens: this.base.promptTokens + t.promptTokens,
      completionTokens: this.base.completionTokens + t.completionTokens,
    };
  }

  /** Wait for pending usage writes (before the run's final write). */
  flushed(): Promise<void> {
    return this.chain;
  }
}
