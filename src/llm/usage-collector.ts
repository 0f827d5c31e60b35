import { runContextOf } from '../core/run-context';
import type { ModelCallRecord } from '../core/run-types';

export type { ModelCallRecord } from '../core/run-types';

declare module '../core/run-context' {
  interface RunContext {
    /** meters the run's model calls (not persisted in checkpoints) */
    usage?: UsageCollector;
  }
}

/**
 * Meters every chat-model call made during one run: which graph node asked, how long it took, and the
 * tokens the endpoint reported. Filled by MeteredChatOpenAI, so nodes need no code for it; no LangChain
 * callback handler is involved (a handler makes every runnable in the graph pay for callback plumbing).
 */
export class UsageCollector {
  readonly calls: ModelCallRecord[] = [];

  record(call: ModelCallRecord): void {
    this.calls.push(call);
  }

  get totals(): { calls: number; promptTokens: number; completionTokens: number; modelMs: number } {
    return this.calls
      .filter((c) => !c.cached)
      .reduce(
        (t, c) => ({
          calls: t.calls + 1,
          promptTokens: t.promptTokens + c.prompt_tokens,
          completionTokens: t.completionTokens + c.completion_tokens,
          modelMs: t.modelMs + c.ms,
        }),
        { calls: 0, promptTokens: 0, completionTokens: 0, modelMs: 0 },
      );
  }

  static of(config: { configurable?: Record<string, unknown> } | undefined): UsageCollector | undefined {
    const c = runContextOf(config)?.usage;
    return c instanceof UsageCollector ? c : undefined;
  }
}
