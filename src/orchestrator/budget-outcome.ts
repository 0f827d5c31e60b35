import type { AgentOutcome } from '../agents/agent-definition';
import type { RunError } from '../database/entities';
import type { RunBudget } from '../llm/run-budget';

/**
 * A run ended by its budget: the failure keeps which budget, its limit and the use in `error`, the tool calls
 * that did run (their effects happened) and the budget report in the trace and metadata.
 */
export function withBudgetReport<T extends { outcome: AgentOutcome }>(failure: T, budget: RunBudget): T {
  const exceeded = budget.exceeded;
  if (!exceeded || !failure.outcome.error) return failure;
  const details = { budget: exceeded.budget, limit: exceeded.limit, used: exceeded.used };
  const error: RunError = { ...failure.outcome.error, ...details };
  const report = budget.report();
  const toolCalls = budget.toolCalls;
  return {
    ...failure,
    outcome: {
      ...failure.outcome,
      error,
      toolCalls,
      metadata: { ...failure.outcome.metadata, budget: report },
      trace: { ...failure.outcome.trace, tool_history: toolCalls, budget: report },
    },
  };
}
