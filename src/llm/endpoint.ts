import type { BaseChatModel } from '@langchain/core/language_models/chat_models';

import { clientBaseUrlOf } from '../platform/chat-openai-internals';

/**
 * Which endpoint and model a chat model talks to: the key for what the process remembers per endpoint
 * (JSON mode that works, tool calling refused, circuit breaker). Models without a base URL (OpenAI itself,
 * test fakes) are keyed by their type.
 */
export function endpointOf(model: BaseChatModel): { baseUrl: string; model: string; key: string } {
  const baseUrl = clientBaseUrlOf(model) ?? model._llmType();
  const m: unknown = Reflect.get(model, 'model');
  const name = typeof m === 'string' ? m : '';
  return { baseUrl, model: name, key: `${baseUrl}|${name}` };
}
