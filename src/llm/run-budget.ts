import { runContextOf } from '../core/run-context';
import type { BudgetLimits, ToolCallRecord } from '../core/run-types';

export type { BudgetLimits } from '../core/run-types';

export type BudgetKind = 'model_calls' | 'model_tokens' | 'tool_calls';

declare module '../core/run-context' {
  interface RunContext {
    /** the run's budget (not persisted), charged by the metered model and the tool executor */
    budget?: RunBudget;
  }
}

/** A run spent one of its budgets. Ends the run `failed` with `BUDGET_EXCEEDED`; not a model failure. */
export class BudgetExceededError extends Error {
  readonly code = 'BUDGET_EXCEEDED' as const;

  constructor(
    readonly budget: BudgetKind,
    readonly limit: number,
    readonly used: number,
  ) {
    super(`run budget exceeded: ${budget} (limit ${limit}, used ${used})`);
    this.name = 'BudgetExceededError';
  }
}

/**
 * Counts what one run spends and refuses what goes over a limit. Charged where the model and the tools are
 * called (MeteredChatOpenAI, runToolCalls), never by the agents themselves. Going over a limit is final for the
 * run: every later charge throws the same error, and the budget's `signal` aborts, so that nodes which catch
 * model or tool errors (and rethrow only on abort) stop instead of taking a fallback path.
 *
 * Tool calls over the budget are the exception to throwing at once: they are answered "not run" (see
 * tool-budget.ts), so the history keeps a result for every tool call the model made and the session's next turn
 * is well formed; the run then ends at its next charge (the model call that would read those answers), or when
 * the graph returns.
 */
export class RunBudget {
  private readonly spent: Record<BudgetKind, number> = { model_calls: 0, model_tokens: 0, tool_calls: 0 };
  private readonly controller = new AbortController();
  private error?: BudgetExceededError;
  private readonly executed: ToolCallRecord[] = [];

  constructor(readonly limits: BudgetLimits) {}

  /** aborts (with the BudgetExceededError as reason) when a budget is exceeded: combine it into the run's signal */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** the error that ended the run's budget, if any */
  get exceeded(): BudgetExceededError | undefined {
    return this.error;
  }

  get used(): Readonly<Record<BudgetKind, number>> {
    return { ...this.spent };
  }

  /** Before a call to the model endpoint: refuses it when the model-call budget is spent. */
  chargeModelCall(): void {
    this.chargeBefore('model_calls', this.limits.modelCalls, 1);
  }

  /** After a model call: the tokens the endpoint reported. Throws when they take the run over its token budget. */
  chargeTokens(tokens: number): void {
    this.throwIfExceeded();
    if (tokens <= 0) return;
    this.spent.model_tokens += tokens;
    const limit = this.limits.modelTokens;
    if (limit > 0 && this.spent.model_tokens > limit) this.exceed('model_tokens', limit, this.spent.model_tokens);
  }

  /**
   * Before executing tool calls: all of them fit in the budget (charged, true), or none is to run (false; the
   * budget is now exceeded, the signal aborts at the next charge so the node refusing them can still finish).
   */
  tryChargeToolCalls(count: number): boolean {
    if (this.error) return false;
    const limit = this.limits.toolCalls;
    if (limit > 0 && this.spent.tool_calls + count > limit) {
      this.error = new BudgetExceededError('tool_calls', limit, this.spent.tool_calls);
      return false;
    }
    this.spent.tool_calls += count;
    return true;
  }

  /** The tool calls run so far (kept here too, so that a run ended by its budget still shows them). */
  recordToolCalls(records: ToolCallRecord[]): void {
    this.executed.push(...records);
  }

  get toolCalls(): ToolCallRecord[] {
    return [...this.executed];
  }

  /** limits and use, for the run's trace and metadata */
  report(): { limits: BudgetLimits; used: Record<BudgetKind, number>; exceeded: BudgetKind | null } {
    return { limits: { ...this.limits }, used: this.used, exceeded: this.error?.budget ?? null };
  }

  /** Throws the run's BudgetExceededError (and aborts the signal) if a budget was exceeded earlier. */
  throwIfExceeded(): void {
    if (!this.error) return;
    this.controller.abort(this.error);
    throw this.error;
  }

  static of(config: { configurable?: Record<string, unknown> } | undefined): RunBudget | undefined {
    const b = runContextOf(config)?.budget;
    return b instanceof RunBudget ? b : undefined;
  }

  private chargeBefore(kind: BudgetKind, limit: number, count: number): void {
    this.throwIfExceeded();
    if (limit > 0 && this.spent[kind] + count > limit) this.exceed(kind, limit, this.spent[kind]);
    this.spent[kind] += count;
  }

  private exceed(kind: BudgetKind, limit: number, used: number): never {
    this.error = new BudgetExceededError(kind, limit, used);
    this.throwIfExceeded();
    throw this.error; // unreachable: for the type checker
  }
}

/** Is this the budget's error (also after crossing a serialization boundary that kept `code`)? */
export function isBudgetExceeded(err: unknown): boolean {
  return (
    err instanceof BudgetExceededError ||
    (typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'BUDGET_EXCEEDED')
  );
}
