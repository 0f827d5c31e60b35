import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';

import { notePlannedCalls } from '../../../tools/tool-guard';
import { ruleToolCall } from '../../react/rules';
import { validatePlan } from '../plan-schema';
import { fill, PLANNER_PROMPT } from '../prompts';
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
    const reply = await model.invoke([new SystemMessage(system), new HumanMessage(state.rewritten_query)], config);
    const checked = validatePlan(String(reply.content), deps.toolNames());
    if ('error' in checked)
      return { error: checked.error, plan: [], decision_log: [...state.decision_log, { node: 'planner', error: checked.error.code }] };
    notePlannedCalls(config, checked.plan); // steps chosen before any tool output: the guard lets them run
    return { plan: checked.plan, decision_log: [...state.decision_log, { node: 'planner', steps: checked.plan.length, by: 'model' }] };
  };
}
