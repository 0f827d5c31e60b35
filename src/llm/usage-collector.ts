import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { Serialized } from '@langchain/core/load/serializable';
import type { BaseMessage } from '@langchain/core/messages';
import type { LLMResult } from '@langchain/core/outputs';

export interface ModelCallRecord {
  node: string;
  ms: number;
  prompt_tokens: number;
  completion_tokens: number;
  error?: string;
}

interface Pending {
  node: string;
  started: number;
}

/**
 * Meters every chat-model call made during one run: which graph node asked, how long it took,
 * and the tokens the endpoint reported. Passed as a callback in the run's config, so nodes need no code for it.
 */
export class UsageCollector extends BaseCallbackHandler {
  name = 'usage_collector';
  readonly calls: ModelCallRecord[] = [];
  private readonly pending = new Map<string, Pending>();

  override handleChatModelStart(
    _llm: Serialized,
    _messages: BaseMessage[][],
    runId: string,
    _parentRunId?: string,
    _extra?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ): void {
    const node = typeof metadata?.langgraph_node === 'string' ? metadata.langgraph_node : 'unknown';
    this.pending.set(runId, { node, started: performance.now() });
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    const p = this.take(runId);
    if (!p) return;
    const usage = tokenUsage(output);
    this.calls.push({ node: p.node, ms: Math.round(performance.now() - p.started), ...usage });
  }

  override handleLLMError(err: unknown, runId: string): void {
    const p = this.take(runId);
    if (!p) return;
    const message = err instanceof Error ? err.message : String(err);
    this.calls.push({ node: p.node, ms: Math.round(performance.now() - p.started), prompt_tokens: 0, completion_tokens: 0, error: message });
  }

  get totals(): { calls: number; promptTokens: number; completionTokens: number; modelMs: number } {
    return this.calls.reduce(
      (t, c) => ({
        calls: t.calls + 1,
        promptTokens: t.promptTokens + c.prompt_tokens,
        completionTokens: t.completionTokens + c.completion_tokens,
        modelMs: t.modelMs + c.ms,
      }),
      { calls: 0, promptTokens: 0, completionTokens: 0, modelMs: 0 },
    );
  }

  private take(runId: string): Pending | undefined {
    const p = this.pending.get(runId);
    this.pending.delete(runId);
    return p;
  }
}

function tokenUsage(output: LLMResult): { prompt_tokens: number; completion_tokens: number } {
  const fromLlm = output.llmOutput?.tokenUsage as { promptTokens?: number; completionTokens?: number } | undefined;
  if (fromLlm && (fromLlm.promptTokens || fromLlm.completionTokens)) {
    return { prompt_tokens: fromLlm.promptTokens ?? 0, completion_tokens: fromLlm.completionTokens ?? 0 };
  }
  const gen = output.generations?.[0]?.[0] as { message?: { usage_metadata?: { input_tokens?: number; output_tokens?: number } } } | undefined;
  const u = gen?.message?.usage_metadata;
  return { prompt_tokens: u?.input_tokens ?? 0, completion_tokens: u?.output_tokens ?? 0 };
}
