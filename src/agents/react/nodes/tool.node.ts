import { AIMessage, ToolMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { ToolCallRecord } from '../../agent-definition';
import type { ReactStateType, ReactUpdate } from '../state';

const MAX_TOOL_OUTPUT = 8000;

/**
 * ToolNode: runs the last AI message's tool calls (in parallel). A failing tool, an unknown tool or bad
 * arguments become an error result that goes back to the model — the run does not crash.
 */
export function createToolNode(tools: StructuredToolInterface[]) {
  const byName = new Map(tools.map((t) => [t.name, t]));
  return async function tool(state: ReactStateType, config: LangGraphRunnableConfig): Promise<ReactUpdate> {
    const last = state.messages[state.messages.length - 1] as AIMessage;
    const calls = last.tool_calls ?? [];
    const results = await Promise.all(
      calls.map(async (call) => {
        const id = call.id ?? `call_${call.name}`;
        const t = byName.get(call.name);
        if (!t) {
          const names = [...byName.keys()].join(', ');
          return result(call, id, `Error: unknown tool "${call.name}". Available tools: ${names}`, 'error');
        }
        try {
          const out: unknown = await t.invoke(call.args, config);
          const text = typeof out === 'string' ? out : JSON.stringify(out);
          return result(call, id, text.slice(0, MAX_TOOL_OUTPUT), 'success');
        } catch (err) {
          if (config.signal?.aborted) throw err;
          return result(call, id, `Error: ${(err as Error).message}`, 'error');
        }
      }),
    );
    return {
      messages: results.map((r) => r.message),
      tool_calls: [...state.tool_calls, ...results.map((r) => r.record)],
      current_step: 'tool',
    };
  };
}

function result(call: { name: string; args: Record<string, unknown> }, id: string, content: string, status: 'success' | 'error') {
  return {
    message: new ToolMessage({ content, tool_call_id: id, name: call.name, status }),
    record: { name: call.name, args: call.args, status } satisfies ToolCallRecord,
  };
}
