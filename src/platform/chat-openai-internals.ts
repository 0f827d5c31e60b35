/**
 * What the model client (llm/metered-chat-model.ts, llm/endpoint.ts) reads of a `@langchain/openai` ChatOpenAI
 * beyond its public API:
 * - `fields`, the options it was constructed with (protected): ChatOpenAI's `withConfig` (which `bindTools`
 *   uses) builds `new ChatOpenAI(this.fields)`, a plain ChatOpenAI; MeteredChatOpenAI builds itself again from
 *   them to keep its metering, retries and lenient completions.
 * - `clientConfig.baseURL` (marked `@internal`): the endpoint a model talks to, the key of its circuit breaker,
 *   LLM-cache entries and what is remembered per endpoint.
 * MeteredChatOpenAI also overrides the underscore call paths (`_separateRunnableConfigFromCallOptionsCompat`,
 * `_generate`, `_streamResponseChunks`, `_streamChatModelEvents`) to charge a run's budget.
 *
 * Relies on @langchain/openai 1.5.8 (pinned exactly); the canary is chat-openai-internals.spec.ts.
 */

/** The options a ChatOpenAI was constructed with (its protected `fields`). */
export function constructorFieldsOf<F extends object>(model: object): F | undefined {
  return Reflect.get(model, 'fields') as F | undefined;
}

/** The base URL a ChatOpenAI's client sends to (`clientConfig.baseURL`); undefined for other models. */
export function clientBaseUrlOf(model: object): string | undefined {
  return (model as { clientConfig?: { baseURL?: string } }).clientConfig?.baseURL;
}
