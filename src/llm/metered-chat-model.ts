import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import type { AIMessageChunk } from '@langchain/core/messages';
import { ChatOpenAI, type ChatOpenAICallOptions } from '@langchain/openai';
import { UsageCollector } from './usage-collector';

/**
 * ChatOpenAI that reports each call (node, duration, tokens, failure) to the run's UsageCollector.
 * `bindTools`, `withStructuredOutput` and prompt-mode wrappers all end in this `invoke`.
 */
export class MeteredChatOpenAI extends ChatOpenAI {
  /** ChatOpenAI.withConfig (used by bindTools) builds a plain ChatOpenAI; keep the metering. */
  override withConfig(config: Partial<ChatOpenAICallOptions>): MeteredChatOpenAI {
    const model = new MeteredChatOpenAI((this as unknown as { fields: ConstructorParameters<typeof ChatOpenAI>[0] }).fields);
    model.defaultOptions = { ...this.defaultOptions, ...config };
    return model;
  }

  override async invoke(input: BaseLanguageModelInput, options?: ChatOpenAICallOptions): Promise<AIMessageChunk> {
    const usage = UsageCollector.of(options as { configurable?: Record<string, unknown> });
    if (!usage) return super.invoke(input, options);
    const metadata = (options as { metadata?: Record<string, unknown> } | undefined)?.metadata;
    const node = typeof metadata?.langgraph_node === 'string' ? metadata.langgraph_node : 'unknown';
    const started = performance.now();
    try {
      const out = await super.invoke(input, options);
      const u = out.usage_metadata;
      usage.record({ node, ms: Math.round(performance.now() - started), prompt_tokens: u?.input_tokens ?? 0, completion_tokens: u?.output_tokens ?? 0 });
      return out;
    } catch (err) {
      usage.record({ node, ms: Math.round(performance.now() - started), prompt_tokens: 0, completion_tokens: 0, error: (err as Error).message.slice(0, 200) });
      throw err;
    }
  }
}
