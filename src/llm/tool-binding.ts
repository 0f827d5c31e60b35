import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import type { Runnable } from '@langchain/core/runnables';
import type { StructuredToolInterface } from '@langchain/core/tools';

import { withPromptToolCalling } from './prompt-tools/prompt-tool-calling.model';

export type ToolCallingMode = 'native' | 'prompt';

/** Bound models per (model, tool list, mode): binding converts every tool schema and builds a new client. */
const cache = new WeakMap<BaseChatModel, WeakMap<StructuredToolInterface[], Map<ToolCallingMode, Runnable<BaseMessage[], BaseMessage>>>>();

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
  let byTools = cache.get(model);
  if (!byTools) cache.set(model, (byTools = new WeakMap()));
  let byMode = byTools.get(tools);
  if (!byMode) byTools.set(tools, (byMode = new Map()));
  let bound = byMode.get(mode);
  if (!bound) byMode.set(mode, (bound = bind(model, tools, mode)));
  return bound;
}

function bind(model: BaseChatModel, tools: StructuredToolInterface[], mode: ToolCallingMode): Runnable<BaseMessage[], BaseMessage> {
  if (mode === 'prompt') return withPromptToolCalling(model, tools) as unknown as Runnable<BaseMessage[], BaseMessage>;
  if (!model.bindTools) throw new Error('this chat model does not support native tool calling; set LLM_TOOL_CALLING=prompt');
  return model.bindTools(tools) as Runnable<BaseMessage[], BaseMessage>;
}
