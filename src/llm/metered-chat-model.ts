import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import type { AIMessageChunk, BaseMessage } from '@langchain/core/messages';
import type { ChatGenerationChunk, ChatResult } from '@langchain/core/outputs';
import type { RunnableConfig } from '@langchain/core/runnables';
import { ChatOpenAI, type ChatOpenAICallOptions } from '@langchain/openai';

import { currentRun } from '../observability/log-context';
import { phaseSince } from '../observability/phases';
import { clientBaseUrlOf, constructorFieldsOf } from '../platform/chat-openai-internals';
import { breakerFor, type BreakerSettings, type CircuitBreaker } from './circuit-breaker';
import { LenientCompletions } from './lenient-completions';
import { NO_LOOKUP } from './llm-cache';
import { isAbortError, isModelUnavailable, ModelUnavailableError, namingTheEndpoint, statusOf } from './model-errors';
import { isBudgetExceeded, RunBudget } from './run-budget';
import { type ModelCallRecord, UsageCollector } from './usage-collector';

type Fields = ConstructorParameters<typeof ChatOpenAI>[0] & { rateLimitRetries?: number; breaker?: BreakerSettings };

/**
 * The run budget of a call, carried on its call options from `generate` to `_generate` / `_streamResponseChunks`
 * (reached only on an LLM-cache miss), which charge it. A symbol key: LangChain's copies of the options keep it,
 * and it is never serialized into the request. (Not an AsyncLocalStorage: on Node 20 every enabled one adds work
 * to every promise the process creates — a streamed token alone goes through dozens.)
 */
const CALL_BUDGET = Symbol('runBudget');

function budgetOf(callOptions: object): RunBudget | undefined {
  return (callOptions as { [CALL_BUDGET]?: RunBudget })[CALL_BUDGET];
}

/** Call option: the prompt holds a tool call the model has just made (see NO_LOOKUP). */
const FRESH_TOOL_CALL = Symbol('freshToolCall');

/** A model-made tool call among the messages that was not replayed from the cache: its id has never been in a key. */
function holdsFreshToolCall(input: BaseLanguageModelInput): boolean {
  if (!Array.isArray(input)) return false;
  return input.some((m) => {
    const msg = m as { tool_calls?: unknown[]; response_metadata?: Record<string, unknown> };
    return Boolean(msg?.tool_calls?.length) && msg.response_metadata?.cache_hit !== true;
  });
}

/** A rate limit asking to wait longer than this is not waited for (LangChain already waits up to 60 s itself): the call fails and counts for the breaker. */
const MAX_RETRY_AFTER_MS = 30_000;

/** the client's endpoint when no base URL is configured: the breaker key then */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * ChatOpenAI that reports each call (node, duration, tokens, failure) to the run's UsageCollector, and
 * retries rate-limit answers that the client gives up on at once (a 429 without `retry-after`, or one asking
 * for more than a minute), with exponential backoff (at least the `retry-after` asked for, at most 30 s), at
 * most `rateLimitRetries` times. The endpoint's circuit breaker (per base URL, shared by the process) sees
 * each call's outcome after the retries; while it is open calls fail at once with ModelUnavailableError.
 * The run's RunBudget (`configurable[BUDGET_KEY]`) is charged a model call before each request to the
 * endpoint (cache hits are free) and the reported tokens after it; a spent budget throws BudgetExceededError.
 * `bindTools`, `withStructuredOutput` and the prompt-mode wrapper all end in this `invoke`.
 */
export class MeteredChatOpenAI extends ChatOpenAI {
  private readonly rateLimitRetries: number;
  private readonly breaker: CircuitBreaker;

  constructor(fields: Fields) {
    // decisions in json_schema mode are parsed leniently by decideJson, not strictly by the SDK
    super({ ...fields, completions: fields.completions ?? new LenientCompletions(fields) });
    this.rateLimitRetries = fields.rateLimitRetries ?? 0;
    this.breaker = breakerFor(fields.configuration?.baseURL ?? OPENAI_BASE_URL, fields.breaker);
  }

  get circuitBreaker(): CircuitBreaker {
    return this.breaker;
  }

  /** ChatOpenAI.withConfig (used by bindTools) builds a plain ChatOpenAI; keep metering and retries. */
  override withConfig(config: Partial<ChatOpenAICallOptions>): MeteredChatOpenAI {
    const fields = constructorFieldsOf<Fields>(this);
    const model = new MeteredChatOpenAI({ ...fields, rateLimitRetries: this.rateLimitRetries, breaker: undefined });
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
      baseURL: clientBaseUrlOf(this),
      temperature: this.temperature,
      max_tokens: this.maxTokens,
      tools: o.tools,
      tool_choice: o.tool_choice,
      response_format: o.response_format,
      stop: o.stop,
    };
    const fresh = (options as { [FRESH_TOOL_CALL]?: boolean })[FRESH_TOOL_CALL];
    return (fresh ? NO_LOOKUP : '') + JSON.stringify(params);
  }

  override async invoke(input: BaseLanguageModelInput, options?: ChatOpenAICallOptions): Promise<AIMessageChunk> {
    const usage = UsageCollector.of(options as { configurable?: Record<string, unknown> });
    const metadata = (options as { metadata?: Record<string, unknown> } | undefined)?.metadata;
    const node = nodeOf(metadata);
    const budget = RunBudget.of(options as { configurable?: Record<string, unknown> });
    const started = performance.now();
    let out: AIMessageChunk;
    try {
      const fresh = this.cache && holdsFreshToolCall(input);
      out = await this.invokeThroughBreaker(input, fresh ? ({ ...options, [FRESH_TOOL_CALL]: true } as ChatOpenAICallOptions) : options);
    } catch (err) {
      // refused by the open breaker or the spent budget: no call reached the endpoint, nothing to meter
      if ((err instanceof ModelUnavailableError && err.breakerOpen) || isBudgetExceeded(err)) throw err;
      const failed = {
        node,
        ms: Math.round(performance.now() - started),
        prompt_tokens: 0,
        completion_tokens: 0,
        error: (err as Error).message.slice(0, 200),
      };
      usage?.record(failed);
      this.observe(failed, input);
      throw namingTheEndpoint(err, clientBaseUrlOf(this));
    }
    const u = out.usage_metadata;
    const cached = out.response_metadata?.cache_hit === true;
    const tokens = { prompt_tokens: u?.input_tokens ?? 0, completion_tokens: u?.output_tokens ?? 0 };
    const call = { node, ms: Math.round(performance.now() - started), ...tokens, ...(cached ? { cached } : {}) };
    usage?.record(call);
    this.observe(call, input, out);
    phaseSince('model_call_to_parsed', started);
    if (!cached) budget?.chargeTokens(tokens.prompt_tokens + tokens.completion_tokens);
    return out;
  }

  /** Metrics, debug log and span of the call (the prompt and answer text are built only for debug logs). */
  private observe(call: ModelCallRecord, input: BaseLanguageModelInput, out?: AIMessageChunk): void {
    currentRun()?.modelCall({
      node: call.node,
      model: this.model,
      ms: call.ms,
      promptTokens: call.prompt_tokens,
      completionTokens: call.completion_tokens,
      cached: call.cached === true,
      error: call.error,
      prompt: () => promptText(input),
      output:
        out && (() => (typeof out.content === 'string' ? out.content : JSON.stringify(out.content)) + JSON.stringify(out.tool_calls ?? [])),
    });
  }

  /** Every call path (invoke, generate, stream) splits its options here: the call options get the run's budget. */
  protected override _separateRunnableConfigFromCallOptionsCompat(
    options?: Partial<ChatOpenAICallOptions>,
  ): [RunnableConfig, this['ParsedCallOptions']] {
    const [config, callOptions] = super._separateRunnableConfigFromCallOptionsCompat(options);
    const budget = RunBudget.of(config);
    if (budget) (callOptions as { [CALL_BUDGET]?: RunBudget })[CALL_BUDGET] = budget;
    return [config, callOptions];
  }

  /** A request to the endpoint (LangChain calls this only on an LLM-cache miss): charged to the run's budget first. */
  override async _generate(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    budgetOf(options)?.chargeModelCall();
    return super._generate(messages, options, runManager);
  }

  /**
   * The streaming form of the request (used instead of `_generate` when tokens are streamed). Not a generator of
   * its own: it charges when called (LangChain calls it right before iterating, inside the same try) and hands
   * back the client's generator, so a streamed chunk does not pass through one more async-generator step.
   */
  override _streamResponseChunks(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    budgetOf(options)?.chargeModelCall();
    return super._streamResponseChunks(messages, options, runManager);
  }

  /** The event-streaming form (used when a callback prefers chat-model stream events); charged as above. */
  override _streamChatModelEvents(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): ReturnType<ChatOpenAI['_streamChatModelEvents']> {
    budgetOf(options)?.chargeModelCall();
    return super._streamChatModelEvents(messages, options, runManager);
  }

  private async invokeThroughBreaker(input: BaseLanguageModelInput, options?: ChatOpenAICallOptions): Promise<AIMessageChunk> {
    this.breaker.acquire();
    try {
      const out = await this.invokeWithRateLimitRetries(input, options);
      // a cache hit says nothing about the endpoint
      if (out.response_metadata?.cache_hit === true) this.breaker.release();
      else this.breaker.success();
      return out;
    } catch (err) {
      if (isAbortError(err, options?.signal)) this.breaker.release();
      else if (isModelUnavailable(err)) this.breaker.failure();
      else if (statusOf(err) !== undefined)
        this.breaker.success(); // the endpoint answered (a 4xx): it is up
      else this.breaker.release();
      throw err;
    }
  }

  private async invokeWithRateLimitRetries(input: BaseLanguageModelInput, options?: ChatOpenAICallOptions): Promise<AIMessageChunk> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await super.invoke(input, options);
      } catch (err) {
        if (attempt >= this.rateLimitRetries || !isRateLimit(err) || options?.signal?.aborted) throw err;
        const retryAfter = retryAfterMs(err);
        if (retryAfter !== undefined && retryAfter > MAX_RETRY_AFTER_MS) throw err;
        const backoff = Math.min(8000, 500 * 2 ** attempt) * (0.75 + Math.random() / 2);
        await sleep(Math.max(backoff, retryAfter ?? 0), options?.signal);
      }
    }
  }
}

/** The node a call is metered under: decideJson's `model_call_node`, else LangGraph's node. */
function nodeOf(metadata: Record<string, unknown> | undefined): string {
  const n = metadata?.model_call_node ?? metadata?.langgraph_node;
  return typeof n === 'string' ? n : 'unknown';
}

/** The prompt as `role: text` lines (debug logs). */
function promptText(input: BaseLanguageModelInput): string {
  const asMessages = (input as { toChatMessages?: () => BaseMessage[] }).toChatMessages?.() ?? input;
  const list: unknown[] = Array.isArray(asMessages) ? asMessages : [asMessages];
  return list
    .map((m) => {
      if (typeof m === 'string') return m;
      const msg = m as Partial<BaseMessage>;
      const text = typeof msg.content === 'string' ? msg.content : JSON.stringify(msg.content ?? m);
      return msg.getType ? `${msg.getType()}: ${text}` : text;
    })
    .join('\n');
}

/** `retry-after` as LangChain's caller parsed it (header or message), in ms. */
function retryAfterMs(err: unknown): number | undefined {
  const ms = (err as { retryAfterMs?: unknown })?.retryAfterMs;
  return typeof ms === 'number' && ms >= 0 ? ms : undefined;
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
