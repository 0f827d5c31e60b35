import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';

import { fill } from '../../shared/text';
import { REPLANNER_PROMPT } from '../prompts';
import type { PlanExecuteStateType, PlanExecuteUpdate } from '../state';
import { decidePlan, type PlannerDeps } from './planner.node';

/** replanner: after a failure, the model revises the remaining plan from `past_steps`; bounded by max_replans. */
export function createReplanner(deps: PlannerDeps) {
  return async function replanner(state: PlanExecuteStateType, config: LangGraphRunnableConfig): Promise<PlanExecuteUpdate> {
    const replan_count = state.replan_count + 1;
    if (replan_count > state.max_replans) {
      return { replan_count, plan: [], error: { code: 'REPLAN_LIMIT', message: `still failing after ${state.max_replans} re-plans` } };
    }
    const model = deps.model();
    if (!model) return { replan_count, plan: [], decision_log: [...state.decision_log, { node: 'replanner', by: 'rules', steps: 0 }] };
    const doneIds = state.past_steps.map((p) => p.step.step_id);
    const nextId = Math.max(0, ...doneIds, ...state.plan.map((s) => s.step_id)) + 1;
    const history = JSON.stringify({
      request: state.rewritten_query,
      past_steps: state.past_steps.map(({ step, status, output }) => ({ step, status, output: output.slice(0, 500) })),
      remaining_plan: state.plan,
    });
    const checked = await decidePlan(
      model,
      [new SystemMessage(fill(REPLANNER_PROMPT, { manifest: deps.manifest(), next_id: String(nextId) })), new HumanMessage(history)],
      deps.toolNames(),
      { node: 'replanner', config, doneIds: doneIds.filter((_id, i) => state.past_steps[i].status === 'success') },
    );
    if ('error' in checked) return { replan_count, plan: [], error: checked.error };
    return {
      replan_count,
      plan: checked.plan,
      decision_log: [...state.decision_log, { node: 'replanner', replan_count, steps: checked.plan.length }],
    };
  };
}
