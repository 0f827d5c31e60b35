import { runContextOf } from './run-context';

declare module './run-context' {
  interface RunContext {
    /**
     * Whether this attempt still holds its run, by this process's clock (orchestrator/turn-lease.service.ts):
     * undefined when it does (go on at once), else a promise that resolves once a renewal has confirmed it and
     * rejects when none can. Asked before a side effect outside the database — a tool that acts on the world — so
     * an attempt whose worker was cut off past its lease does not act beside the attempt that took the run over.
     */
    fence?: () => Promise<void> | undefined;
    /**
     * The attempt this graph run is (the run row's `attempts` when it started). Its checkpoint statements carry it
     * as a predicate (database/checkpoint-tables.ts): they write only while the run's row is still this attempt
     * and running, so a stale attempt's write changes nothing, and no renewal is asked for before it.
     */
    attempt?: number;
  }
}

/**
 * Another attempt of the run has started since this one did: its worker was cut off (or stalled) past its lease
 * and the run was taken over. This attempt records nothing more — no end, no pause, no hand-back, no `result`
 * event; the attempt that holds the run now does.
 */
export class RunSuperseded extends Error {
  constructor(
    readonly runId: string,
    readonly attempt: number,
  ) {
    super(`run ${runId}: attempt ${attempt} was superseded by a later attempt`);
  }
}

/** The run and attempt a write of the graph run is fenced by (its statements' predicate), when it has one. */
export interface RunAttempt {
  runId: string;
  attempt: number;
}

/** Before a side effect of the run: undefined when its attempt holds the run (or it has no lease), else what to wait for. */
export function runHeld(config: { configurable?: Record<string, unknown> } | undefined): Promise<void> | undefined {
  const fence = runContextOf(config)?.fence;
  return typeof fence === 'function' ? fence() : undefined;
}

/** The attempt a checkpoint statement of this graph run is fenced by, when the run has one. */
export function runAttemptOf(config: { configurable?: Record<string, unknown> } | undefined): RunAttempt | undefined {
  const context = runContextOf(config);
  return context && typeof context.attempt === 'number' ? { runId: context.runId, attempt: context.attempt } : undefined;
}
