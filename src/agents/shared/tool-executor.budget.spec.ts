import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { z } from 'zod';

import { FakeChatModel } from '../../../test/support/fake-chat-model';
import { BUDGET_KEY, BudgetExceededError, RunBudget } from '../../llm/run-budget';
import { buildReactGraph } from '../react/graph';
import { runToolCalls } from './tool-executor';

/** A calculator that counts its executions. */
function countingCalculator() {
  const counter = { runs: 0 };
  const calc = tool(
    async ({ expression }: { expression: string }) => {
      counter.runs += 1;
      return `${expression} = 2`;
    },
    { name: 'calculator', description: 'evaluates arithmetic', schema: z.object({ expression: z.string() }) },
  );
  return { calc, counter };
}

const callCalculator = (id: string, n = 1) =>
  new AIMessage({
    content: '',
    tool_calls: Array.from({ length: n }, (_, i) => ({
      id: `${id}_${i}`,
      name: 'calculator',
      args: { expression: '1+1' },
      type: 'tool_call' as const,
    })),
  });

const limits = (toolCalls: number) => ({ modelCalls: 0, modelTokens: 0, toolCalls });

describe('runToolCalls with a run budget', () => {
  it('runs calls while they fit, then refuses the whole next message without running any of it', async () => {
    const { calc, counter } = countingCalculator();
    const budget = new RunBudget(limits(3));
    const config = { configurable: { [BUDGET_KEY]: budget } };
    const first = await runToolCalls(callCalculator('a', 2), [calc], config);
    expect(first.records.map((r) => r.status)).toEqual(['success', 'success']);
    await expect(runToolCalls(callCalculator('b', 2), [calc], config)).rejects.toMatchObject({
      code: 'BUDGET_EXCEEDED',
      budget: 'tool_calls',
      limit: 3,
      used: 2,
    });
    expect(counter.runs).toBe(2);
    // a spent budget is not an error result for the model: it propagates, also for a later single call
    await expect(runToolCalls(callCalculator('c'), [calc], config)).rejects.toBeInstanceOf(BudgetExceededError);
    expect(counter.runs).toBe(2);
  });

  it('does not limit runs without a budget', async () => {
    const { calc, counter } = countingCalculator();
    for (let i = 0; i < 5; i++) await runToolCalls(callCalculator(`x${i}`), [calc], {});
    expect(counter.runs).toBe(5);
  });

  it('stops a react loop that calls the calculator forever after exactly the budgeted executions', async () => {
    const { calc, counter } = countingCalculator();
    // the model never stops asking for the calculator (more than the iteration limit allows)
    const model = new FakeChatModel(Array.from({ length: 20 }, (_, i) => callCalculator(`loop${i}`)));
    const graph = buildReactGraph({ model: () => model, tools: [calc], toolCalling: () => 'native' }, new MemorySaver());
    const budget = new RunBudget(limits(3));
    const input = {
      messages: [new HumanMessage('keep calculating')],
      user_message: 'keep calculating',
      current_step: 'start',
      iteration_count: 0,
      max_iterations: 10,
      tool_calls: [],
      error: null,
      response: '',
      fast_path: false,
    };
    const config = { configurable: { thread_id: 'budget-loop', [BUDGET_KEY]: budget }, signal: budget.signal };
    await expect(graph.invoke(input, config)).rejects.toBeDefined();
    expect(budget.exceeded).toMatchObject({ budget: 'tool_calls', limit: 3, used: 3 });
    expect(counter.runs).toBe(3);
    expect(model.calls).toHaveLength(4);
  });
});
