import { type AIMessage, ToolMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { isGraphInterrupt } from '@langchain/langgraph';

import { toolLedgerOf } from '../../runs/tool-ledger';
import { guardStatusOf, withToolCallId } from '../../tools/tool-guard';
import type { ToolCallRecord } from '../agent-definition';
import { recordToolRuns, refuseOverBudget } from './tool-budget';

const MAX_TOOL_OUTPUT = 8000;

/**
 * Runs an AI message's tool calls in parallel. A failing tool, an unknown tool or bad arguments become an
 * error ToolMessage for the model (the run goes on); only cancellation propagates. Calls over the run's
 * tool-call budget are not run (answered "not run"; the run then ends with BUDGET_EXCEEDED).
 */
export async function runToolCalls(
  ai: AIMessage,
  tools: StructuredToolInterface[],
  config: RunnableConfig,
): Promise<{ messages: ToolMessage[]; records: ToolCallRecord[] }> {
  const refused = refuseOverBudget(ai, config);
  if (refused) return refused;
  const byName = new Map(tools.map((t) => [t.name, t]));
  const ledger = toolLedgerOf(config); // durability: a resumed run gets recorded results instead of a second execution
  const results = await Promise.all(
    (ai.tool_calls ?? []).map(async (call) => {
      const id = call.id ?? `call_${call.name}`;
      const t = byName.get(call.name);
      let content: string;
      let status: ToolCallRecord['status'] = 'success';
      const recorded = call.id ? await ledger?.lookup(call.id) : null;
      if (recorded) {
        ({ content, status } = recorded);
      } else if (!t) {
        content = `Error: unknown tool "${call.name}". Available tools: ${[...byName.keys()].join(', ')}`;
        status = 'error';
      } else {
        try {
          const out: unknown = await t.invoke(call.args, withToolCallId(config, id));
          content = (typeof out === 'string' ? out : JSON.stringify(out)).slice(0, MAX_TOOL_OUTPUT);
        } catch (err) {
          if (config.signal?.aborted || isGraphInterrupt(err)) throw err; // an approval pause is not a tool error
          content = `Error: ${(err as Error).message}`;
          status = guardStatusOf(err) ?? 'error';
        }
        if (call.id) await ledger?.record(call.id, call.name, call.args, { content, status });
      }
      return {
        message: new ToolMessage({ content, tool_call_id: id, name: call.name, status: status === 'success' ? 'success' : 'error' }),
        record: { name: call.name, args: call.args, status } satisfies ToolCallRecord,
      };
    }),
  );
  recordToolRuns(
    config,
    results.map((r) => r.record),
  );
  return { messages: results.map((r) => r.message), records: results.map((r) => r.record) };
}
