import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import { Runnable, type RunnableConfig } from '@langchain/core/runnables';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { Logger } from '@nestjs/common';

import { endpointOf } from './endpoint';
import { isRejection } from './model-errors';
import { withPromptToolCalling } from './prompt-tools/prompt-tool-calling.model';

/** LLM_TOOL_CALLING: `auto` = native, switching to the ReAct text format when the endpoint refuses tools. */
export type ToolCallingMode = 'native' | 'prompt' | 'auto';

type Bound = Runnable<BaseMessage[], BaseMessage>;

const logger = new Logger('ToolCalling');
/** Bound models per (model, tool list, mode): binding converts every tool schema and builds a new client. */
const cache = new WeakMap<BaseChatModel, WeakMap<StructuredToolInterface[], Map<ToolCallingMode, Bound>>>();
/** endpoint+model keys whose endpoint refused native tools: prompt mode for the rest of the process */
const refusedTools = new Set<string>();

/**
 * vLLM without --enable-auto-tool-choice: `"auto" tool choice requires --enable-auto-tool-choice and
 * --tool-call-parser to be set`; Ollama: `registry.ollama.ai/library/<model> does not support tools`.
 */
const TOOLS_REFUSED =
  /tool choice requires --enable-auto-tool-choice|does not support (?:tools|tool calling|function calling)|tools? (?:are|is) not supported|tool_choice\b.*\bnot supported/i;

/** An HTTP 400/422 that says the endpoint cannot take `tools` (any other 400 is not a refusal). */
export function isToolCallingRefusal(err: unknown): boolean {
  return isRejection(err, TOOLS_REFUSED);
}

/**
 * A model that answers with `tool_calls` either way: `native` sends the tools to the endpoint;
 * `prompt` puts the catalogue into the system prompt and parses the ReAct-format reply; `auto` is native
 * until the endpoint refuses tools, then prompt for that model for the rest of the process (the refused call
 * is retried once in prompt mode).
 */
export function bindToolsForMode(model: BaseChatModel, tools: StructuredToolInterface[], mode: ToolCallingMode): Bound {
  if (tools.length === 0) return model;
  let byTools = cache.get(model);
  if (!byTools) cache.set(model, (byTools = new WeakMap()));
  let byMode = byTools.get(tools);
  if (!byMode) byTools.set(tools, (byMode = new Map()));
  let bound = byMode.get(mode);
  if (!bound) byMode.set(mode, (bound = bind(model, tools, mode)));
  return bound;
}

function bind(model: BaseChatModel, tools: StructuredToolInterface[], mode: ToolCallingMode): Bound {
  if (mode === 'prompt') return withPromptToolCalling(model, tools) as Bound;
  if (mode === 'auto') return autoToolCalling(model, tools);
  if (!model.bindTools) throw new Error('this chat model does not support native tool calling; set LLM_TOOL_CALLING=prompt');
  return model.bindTools(tools) as Bound;
}

function autoToolCalling(model: BaseChatModel, tools: StructuredToolInterface[]): Bound {
  if (!model.bindTools) return bindToolsForMode(model, tools, 'prompt');
  return new AutoToolCalling(model, tools);
}

/**
 * `auto`: the native binding, or the prompt one once the endpoint has refused tools. A plain Runnable whose
 * `invoke` hands the caller's config straight to the binding it picks: the model call is the traced run, as in
 * `native` mode (a RunnableLambda would add a chain run — callback manager, context — to every model call).
 */
class AutoToolCalling extends Runnable<BaseMessage[], BaseMessage> {
  lc_namespace = ['agent_orchestrator', 'llm', 'tool_binding'];
  private readonly key: string;
  private readonly baseUrl: string | undefined;
  private readonly modelName: string | undefined;

  constructor(
    private readonly model: BaseChatModel,
    private readonly tools: StructuredToolInterface[],
  ) {
    super();
    const { key, baseUrl, model: name } = endpointOf(model);
    this.key = key;
    this.baseUrl = baseUrl;
    this.modelName = name;
  }

  async invoke(messages: BaseMessage[], config?: Partial<RunnableConfig>): Promise<BaseMessage> {
    const prompt = () => bindToolsForMode(this.model, this.tools, 'prompt');
    if (refusedTools.has(this.key)) return prompt().invoke(messages, config);
    try {
      return await bindToolsForMode(this.model, this.tools, 'native').invoke(messages, config);
    } catch (err) {
      if (config?.signal?.aborted || !isToolCallingRefusal(err)) throw err;
      if (!refusedTools.has(this.key)) {
        refusedTools.add(this.key);
        logger.warn({
          msg: 'endpoint refused native tool calls; using the ReAct text format for this model from now on',
          baseUrl: this.baseUrl,
          model: this.modelName,
        });
      }
      return prompt().invoke(messages, config);
    }
  }
}

/** Whether `auto` has switched this model to prompt mode (for logs and tests). */
export function toolCallingRefused(model: BaseChatModel): boolean {
  return refusedTools.has(endpointOf(model).key);
}

/** Forget refusals (tests). */
export function resetToolCallingMemory(): void {
  refusedTools.clear();
}
