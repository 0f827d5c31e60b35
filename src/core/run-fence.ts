import { runContextOf } from './run-context';

declare module './run-context' {
  interface RunContext {
    /**
     * Whether this attempt still holds its run, by this process's clock (orchestrator/turn-lease.service.ts):
     * undefined when it does (go on at once), else a promise that resolves once a renewal has confirmed it and
     * rejects when none can. Asked before a side effect — a tool that acts on the world, a checkpoint — so an
     * attempt whose worker was cut off past its lease does neither beside the attempt that took the run over.
     */
    fence?: () => Promise<void> | undefined;
  }
}

/** Before a side effect of the run: undefined when its attempt holds the run (or it has no lease), else what to wait for. */
export function runHeld(config: { configurable?: Record<string, unknown> } | undefined): Promise<void> | undefined {
  const fence = runContextOf(config)?.fence;
  return typeof fence === 'function' ? fence() : undefined;
}
