import type { BaseChatModel } from '@langchain/core/language_models/chat_models';

/**
 * Which endpoint and model a chat model talks to: the key for what the process remembers per endpoint
 * (JSON mode that works, tool calling refused, circuit breaker). Models without a base URL (OpenAI itself,
 * test fakes) are keyed by their type.
 */
export function endpointOf(model: BaseChatModel): { baseUrl: string; model: string; key: string } {
  const m = model as unknown as { clientConfig?: { baseURL?: string }; model?: unknown };
  const baseUrl = m.clientConfig?.baseURL ?? model._llmType();
  const name = typeof m.model === 'string' ? m.model : '';
  return { baseUrl, model: name, key: `${baseUrl}|${name}` };
}
