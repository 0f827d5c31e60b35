import { runContextOf } from './run-context';

declare module './run-context' {
  interface RunContext {
    /**
     * Resolves while this attempt still holds its run, by this process's clock (orchestrator/turn-lease.service.ts),
     * and rejects when it cannot know: called before a tool that acts on the world, so an attempt whose worker was
     * cut off past its lease does not run one that the attempt which took the run over may run too.
     */
    fence?: () => Promise<void>;
  }
}

/** Before a side effect of the run: resolves when its attempt holds the run (or it has no lease: a scope check). */
export async function confirmRunHeld(config: { configurable?: Record<string, unknown> } | undefined): Promise<void> {
  const fence = runContextOf(config)?.fence;
  if (typeof fence === 'function') await fence();
}
