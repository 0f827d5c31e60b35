import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import { AIMessage, type AIMessageChunk, HumanMessage, type ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { z } from 'zod';

import { FakeChatModel } from '../../../test/support/fake-chat-model';
import { type RunContext, withRunContext } from '../../core/run-context';
import { BudgetExceededError, RunBudget } from '../../llm/run-budget';
import { createExecutor } from '../plan-execute/nodes/executor.node';
import type { PlanExecuteStateType } from '../plan-execute/state';
import { buildReactGraph } from '../react/graph';
import { runToolCalls } from './tool-executor';

/** a graph run's context (core/run-context.ts) holding `parts` */
const runCtx = (parts: Partial<RunContext>) => withRunContext({ tenantId: 'default', runId: 'test-run', ...parts });

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

/** The fake model, charging the run's budget before each call as MeteredChatOpenAI does. */
class BudgetedFakeModel extends FakeChatModel {
  override async invoke(input: BaseLanguageModelInput, options?: Parameters<FakeChatModel['invoke']>[1]): Promise<AIMessageChunk> {
    RunBudget.of(options as { configurable?: Record<string, unknown> })?.chargeModelCall();
    return super.invoke(input, options);
  }
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
  it('runs calls while they fit, then answers a whole message "not run" without running any of it', async () => {
    const { calc, counter } = countingCalculator();
    const budget = new RunBudget(limits(3));
    const config = { configurable: { ...runCtx({ budget: budget }) } };
    const first = await runToolCalls(callCalculator('a', 2), [calc], config);
    expect(first.records.map((r) => r.status)).toEqual(['success', 'success']);

    const refused = await runToolCalls(callCalculator('b', 2), [calc], config);
    expect(counter.runs).toBe(2);
    expect(refused.messages.map((m) => [m.tool_call_id, m.status])).toEqual([
      ['b_0', 'error'],
      ['b_1', 'error'],
    ]);
    expect(String(refused.messages[0].content)).toMatch(/not run: run budget exceeded: tool_calls \(limit 3, used 2\)/);
    expect(budget.exceeded).toBeInstanceOf(BudgetExceededError);
    // what ran is kept by the budget (refusals are not executions)
    expect(budget.toolCalls).toHaveLength(2);
    expect((await runToolCalls(callCalculator('c'), [calc], config)).records).toEqual([
      { name: 'calculator', args: { expression: '1+1' }, status: 'error' },
    ]);
    expect(counter.runs).toBe(2);
  });

  it('does not limit runs without a budget', async () => {
    const { calc, counter } = countingCalculator();
    for (let i = 0; i < 5; i++) await runToolCalls(callCalculator(`x${i}`), [calc], {});
    expect(counter.runs).toBe(5);
  });

  it('ends a react loop that calls the calculator forever after exactly the budgeted executions, history well formed', async () => {
    const { calc, counter } = countingCalculator();
    // the model never stops asking for the calculator (more than the iteration limit allows)
    const model = new BudgetedFakeModel(Array.from({ length: 20 }, (_, i) => callCalculator(`loop${i}`)));
    const checkpointer = new MemorySaver();
    const graph = buildReactGraph({ model: () => model, tools: [calc], toolCalling: () => 'native' }, checkpointer);
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
    const configurable = { thread_id: 'budget-loop', ...runCtx({ budget: budget }) };
    // the react node maps model errors to MODEL_UNAVAILABLE, but rethrows once the budget's signal has fired
    await expect(graph.invoke(input, { configurable, signal: budget.signal })).rejects.toBeDefined();
    expect(budget.exceeded).toMatchObject({ budget: 'tool_calls', limit: 3, used: 3 });
    expect(counter.runs).toBe(3);
    expect(model.calls).toHaveLength(4); // the 5th call was refused before reaching the model

    const saved = (await graph.getState({ configurable: { thread_id: 'budget-loop' } })).values as {
      messages: Array<AIMessage | ToolMessage>;
    };
    const answered = new Set(saved.messages.flatMap((m) => (m.getType() === 'tool' ? [(m as ToolMessage).tool_call_id] : [])));
    const asked = saved.messages.flatMap((m) => (m as AIMessage).tool_calls?.map((c) => c.id) ?? []);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.filter((id) => !answered.has(id!))).toEqual([]);
  });
});

describe('executors calling one tool directly, with a run budget', () => {
  it('plan-execute: a step over the budget fails without running its tool', async () => {
    const { calc, counter } = countingCalculator();
    const executor = createExecutor({ tools: () => [calc], stepTimeoutMs: 5000 });
    const budget = new RunBudget(limits(1));
    const config = { configurable: { ...runCtx({ budget: budget }) } };
    const plan = [1, 2].map((step_id) => ({ step_id, tool: 'calculator', input: '1+1' }));
    let state = { plan, past_steps: [] } as Partial<PlanExecuteStateType> as PlanExecuteStateType;
    for (let i = 0; i < 2; i++) state = { ...state, ...(await executor(state, config)) } as PlanExecuteStateType;
    expect(state.past_steps.map((p) => p.status)).toEqual(['success', 'failure']);
    expect(state.past_steps[1].output).toMatch(/run budget exceeded: tool_calls \(limit 1, used 1\)/);
    expect(counter.runs).toBe(1);
    expect(budget.exceeded?.budget).toBe('tool_calls');
  });
});
