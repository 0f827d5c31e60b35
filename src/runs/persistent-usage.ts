import { Logger } from '@nestjs/common';

import { type ModelCallRecord, UsageCollector } from '../llm/usage-collector';
import type { UsageTotals } from './store/run-ledger';

/** A model call as kept on the run: which attempt made it. */
export type AttemptCallRecord = ModelCallRecord & { attempt: number };

export interface RunUsage {
  totals: UsageTotals;
  /** every model call of every attempt, cached ones included */
  calls: AttemptCallRecord[];
}

/**
 * A run's usage across attempts: what earlier attempts recorded (read from the run row when this attempt
 * started) plus every model call of this one, written to the row as it goes — so a worker that dies after a
 * model call has still counted it, and the attempt that resumes adds to it. `writeDelayMs` 0 writes after
 * every call (queued runs, which resume); more coalesces the calls made within that time into one write (a
 * sync turn: its result statement carries the totals, so a short turn writes no usage of its own).
 * Calls answered from the LLM cache are kept in the call list (marked `cached`) but not in `llm_calls` and tokens.
 */
export class PersistentUsageCollector extends UsageCollector {
  private readonly logger = new Logger(PersistentUsageCollector.name);
  private chain: Promise<void> = Promise.resolve();
  private scheduled?: NodeJS.Timeout;

  constructor(
    private readonly base: RunUsage,
    private readonly attempt: number,
    private readonly save: (usage: RunUsage) => Promise<void>,
    private readonly writeDelayMs = 0,
  ) {
    super();
  }

  /** For runs that end without running (nothing to write as it goes). */
  static unwritten(base: RunUsage, attempt: number): PersistentUsageCollector {
    return new PersistentUsageCollector(base, attempt, () => Promise.resolve());
  }

  override record(call: ModelCallRecord): void {
    super.record(call);
    if (this.writeDelayMs <= 0) return this.write();
    if (this.scheduled) return; // the write already planned will carry this call too
    this.scheduled = setTimeout(() => this.write(), this.writeDelayMs);
    this.scheduled.unref();
  }

  /** Writes are chained, so they land in order (each carries the whole usage so far). */
  private write(): void {
    clearTimeout(this.scheduled);
    this.scheduled = undefined;
    const usage = this.runUsage;
    this.chain = this.chain
      .then(() => this.save(usage))
      .catch((err: Error) => this.logger.warn({ msg: 'usage not recorded yet', err: err.message }));
  }

  /** Earlier attempts + this one. */
  get runTotals(): UsageTotals {
    const t = this.totals;
    return {
      calls: this.base.totals.calls + t.calls,
      promptTokens: this.base.totals.promptTokens + t.promptTokens,
      completionTokens: this.base.totals.completionTokens + t.completionTokens,
    };
  }

  /** Every model call of every attempt, in order. */
  get runCalls(): AttemptCallRecord[] {
    return [...this.base.calls, ...this.calls.map((c) => ({ ...c, attempt: this.attempt }))];
  }

  get runUsage(): RunUsage {
    return { totals: this.runTotals, calls: this.runCalls };
  }

  /** Writes what is not written yet, and waits for every write (a run handed back to its queue). */
  flushed(): Promise<void> {
    if (this.scheduled) this.write();
    return this.chain;
  }

  /** Before the run's final statement, which carries the totals: drops a planned write, waits for those sent. */
  settled(): Promise<void> {
    clearTimeout(this.scheduled);
    this.scheduled = undefined;
    return this.chain;
  }
}
