import type { AIMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';

import { runToolCalls, type ToolRunOptions } from '../../shared/tool-executor';
import type { ReactStateType, ReactUpdate } from '../state';

/**
 * ToolNode: runs the last AI message's tool calls (in parallel). A failing tool, an unknown tool or bad
 * arguments become an error result that goes back to the model — the run does not crash.
 */
export function createToolNode(tools: StructuredToolInterface[], opts: ToolRunOptions = {}) {
  return async function tool(state: ReactStateType, config: LangGraphRunnableConfig): Promise<ReactUpdate> {
    const last = state.messages[state.messages.length - 1] as AIMessage;
    const { messages, records, sources } = await runToolCalls(last, tools, config, opts);
    return { messages, tool_calls: [...state.tool_calls, ...records], sources: [...state.sources, ...sources], current_step: 'tool' };
  };
}
