import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import type { Runnable } from '@langchain/core/runnables';
import type { StructuredToolInterface } from '@langchain/core/tools';

export type ToolCallingMode = 'native' | 'prompt';

/**
 * A model that answers with `tool_calls` either way: `native` sends the tools to the endpoint;
 * `prompt` puts the catalogue into the system prompt and parses the ReAct-format reply.
 */
export function bindToolsForMode(
  model: BaseChatModel,
  tools: StructuredToolInterface[],
  mode: ToolCallingMode,
): Runnable<BaseMessage[], BaseMessage> {
  if (tools.length === 0) return model;
  if (mode === 'prompt') throw new Error('prompt tool calling is not available yet');
  if (!model.bindTools) throw new Error('this chat model does not support native tool calling; set LLM_TOOL_CALLING=prompt');
  return model.bindTools(tools) as Runnable<BaseMessage[], BaseMessage>;
}
