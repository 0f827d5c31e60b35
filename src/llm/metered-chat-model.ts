import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import type { AIMessageChunk } from '@langchain/core/messages';
import { ChatOpenAI, type ChatOpenAICallOptions } from '@langchain/openai';

import { UsageCollector } from './usage-collector';

type Fields = ConstructorParameters<typeof ChatOpenAI>[0] & { rateLimitRetries?: number };

/**
 * ChatOpenAI that reports each call (node, duration, tokens, failure) to the run's UsageCollector, and
 * retries rate-limit answers that the client gives up on at once (a 429 without `retry-after`), with
 * exponential backoff, at most `rateLimitRetries` times. `bindTools`, `withStructuredOutput` and the
 * prompt-mode wrapper all end in this `invoke`.
 */
export class MeteredChatOpenAI extends ChatOpenAI {
  private readonly rateLimitRetries: number;

  constructor(fields: Fields) {
    super(fields);
    this.rateLimitRetries = fields.rateLimitRetries ?? 0;
  }

  /** ChatOpenAI.withConfig (used by bindTools) builds a plain ChatOpenAI; keep metering and retries. */
  override withConfig(config: Partial<ChatOpenAICallOptions>): MeteredChatOpenAI {
    const fields = (this as unknown as { fields: Fields }).fields;
    const model = new MeteredChatOpenAI({ ...fields, rateLimitRetries: this.rateLimitRetries });
    model.defaultOptions = { ...this.defaultOptions, ...config };
    return model;
  }

  /**
   * The LLM-cache key's model part: model, endpoint, temperature, max tokens and what shapes the answer
   * (tools, tool choice, response format). LangChain's default also serializes every call option, and
   * LangGraph puts per-run ids there (executionInfo…), which would make every key unique.
   */
  override _getSerializedCacheKeyParametersForCall(options: Parameters<ChatOpenAI['_getSerializedCacheKeyParametersForCall']>[0]): string {
    const o = options as Record<string, unknown>;
    const params: Record<string, unknown> = {
      _type: this._llmType(),
      model: this.model,
      baseURL: (this as unknown as { clientConfig?: { baseURL?: string } }).clientConfig?.baseURL,
      temperature: this.temperature,
      max_tokens: this.maxTokens,
      tools: o.tools,
      tool_choice: o.tool_choice,
      response_format: o.response_format,
      stop: o.stop,
    };
    return JSON.stringify(params);
  }

  override async invoke(input: BaseLanguageModelInput, options?: ChatOpenAICallOptions): Promise<AIMessageChunk> {
    const usage = UsageCollector.of(options as { configurable?: Record<string, unknown> });
    const metadata = (options as { metadata?: Record<string, unknown> } | undefined)?.metadata;
    const node = typeof metadata?.langgraph_node === 'string' ? metadata.langgraph_node : 'unknown';
    const started = performance.now();
    try {
      const out = await this.invokeWithRateLimitRetries(input, options);
      const u = out.usage_metadata;
      const cached = out.response_metadata?.cache_hit === true;
      usage?.record({
        node,
        ms: Math.round(performance.now() - started),
        prompt_tokens: u?.input_tokens ?? 0,
        completion_tokens: u?.output_tokens ?? 0,
        ...(cached ? { cached } : {}),
      });
      return out;
    } catch (err) {
      usage?.record({
        node,
        ms: Math.round(performance.now() - started),
        prompt_tokens: 0,
        completion_tokens: 0,
        error: (err as Error).message.slice(0, 200),
      });
      throw err;
    }
  }

  private async invokeWithRateLimitRetries(input: BaseLanguageModelInput, options?: ChatOpenAICallOptions): Promise<AIMessageChunk> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await super.invoke(input, options);
      } catch (err) {
        if (attempt >= this.rateLimitRetries || !isRateLimit(err) || options?.signal?.aborted) throw err;
        await sleep(Math.min(8000, 500 * 2 ** attempt) * (0.75 + Math.random() / 2), options?.signal);
      }
    }
  }
}

function isRateLimit(err: unknown): boolean {
  const e = err as { status?: number; name?: string; lc_error_code?: string };
  return e?.status === 429 || e?.name === 'RateLimitCapacityError' || e?.lc_error_code === 'MODEL_RATE_LIMIT';
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
