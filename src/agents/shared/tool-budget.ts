import { type AIMessage, ToolMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';

import { RunBudget } from '../../llm/run-budget';
import type { ToolCallRecord } from '../agent-definition';

export interface ToolResults {
  messages: ToolMessage[];
  records: ToolCallRecord[];
}

/**
 * The run's tool-call budget, before an AI message's tool calls run: null when all of them fit (charged), else
 * an answer "not run" for each (none runs). Answering them keeps the history well formed (every tool call has
 * its result) for the session's next turn; the run itself ends at its next model call (BudgetExceededError).
 */
export function refuseOverBudget(ai: AIMessage, config: RunnableConfig): ToolResults | null {
  const budget = RunBudget.of(config);
  const calls = ai.tool_calls ?? [];
  if (!budget || budget.tryChargeToolCalls(calls.length)) return null;
  const content = `Error: not run: ${budget.exceeded?.message ?? 'run budget exceeded'}`;
  return {
    messages: calls.map(
      (call) => new ToolMessage({ content, tool_call_id: call.id ?? `call_${call.name}`, name: call.name, status: 'error' }),
    ),
    records: calls.map((call) => ({ name: call.name, args: call.args, status: 'error' as const })),
  };
}

/** Tool calls that ran, kept by the run's budget too (a run ended by its budget still reports them). */
export function recordToolRuns(config: RunnableConfig, records: ToolCallRecord[]): void {
  RunBudget.of(config)?.recordToolCalls(records);
}

/**
 * For executors that call one tool directly (plan-execute steps, contract-qa lookups): charges one tool call,
 * or throws the run's BudgetExceededError without running it. Those executors turn a thrown error into a failed
 * step; the run then ends at its next model call.
 */
export function chargeToolCall(config: RunnableConfig): void {
  const budget = RunBudget.of(config);
  if (budget && !budget.tryChargeToolCalls(1)) throw budget.exceeded;
}
