import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';

import type { RunError } from '../../../database/entities';
import { decideJson, RAW_JSON } from '../../../llm/decide-json';
import { ruleToolCall } from '../../shared/rules';
import { fill } from '../../shared/text';
import { checkPlan, type PlanStep } from '../plan-schema';
import { PLANNER_PROMPT } from '../prompts';
import type { PlanExecuteStateType, PlanExecuteUpdate } from '../state';

export interface PlannerDeps {
  model: () => BaseChatModel | null;
  manifest: () => string;
  toolNames: () => string[];
}

/** planner: the model's JSON plan, validated fail-closed; without a model, a one-step rule plan. */
export function createPlanner(deps: PlannerDeps) {
  return async function planner(state: PlanExecuteStateType, config: LangGraphRunnableConfig): Promise<PlanExecuteUpdate> {
    const model = deps.model();
    if (!model) {
      const call = ruleToolCall(state.rewritten_query);
      const plan = call && deps.toolNames().includes(call.name) ? [{ step_id: 1, tool: call.name, input: call.args }] : [];
      return { plan, decision_log: [...state.decision_log, { node: 'planner', steps: plan.length, by: 'rules' }] };
    }
    const system = fill(PLANNER_PROMPT, { manifest: deps.manifest(), now: state.current_datetime });
    const checked = await decidePlan(model, [new SystemMessage(system), new HumanMessage(state.rewritten_query)], deps.toolNames(), {
      node: 'planner',
      config,
    });
    if ('error' in checked)
      return { error: checked.error, plan: [], decision_log: [...state.decision_log, { node: 'planner', error: checked.error.code }] };
    return { plan: checked.plan, decision_log: [...state.decision_log, { node: 'planner', steps: checked.plan.length, by: 'model' }] };
  };
}

/**
 * A plan from the model as a JSON decision (fail-closed: no re-ask; unreadable JSON is PLAN_INVALID_JSON). JSON mode
 * cannot return a bare list, so `{"steps": [...]}` / `{"plan": [...]}` are the same plan.
 */
export async function decidePlan(
  model: BaseChatModel,
  messages: BaseMessage[],
  manifest: string[],
  opts: { node: string; config: LangGraphRunnableConfig; doneIds?: number[] },
): Promise<{ plan: PlanStep[] } | { error: RunError }> {
  const answer = await decideJson(model, messages, RAW_JSON, { node: opts.node, config: opts.config, retries: 0 });
  if (!answer.ok) return { error: { code: 'PLAN_INVALID_JSON', message: 'the plan is not valid JSON' } };
  return checkPlan(answer.value, manifest, opts.doneIds);
}
