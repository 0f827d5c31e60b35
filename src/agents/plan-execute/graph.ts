import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { type BaseCheckpointSaver, END, START, StateGraph } from '@langchain/langgraph';

import type { ToolRunOptions } from '../shared/tool-executor';
import { createExecutor } from './nodes/executor.node';
import { createFinalAnswer, error_handler } from './nodes/final-answer.node';
import { createIntentClassifier } from './nodes/intent-classifier.node';
import { createPlanner } from './nodes/planner.node';
import { createReplanner } from './nodes/replanner.node';
import { PlanExecuteState, type PlanExecuteStateType } from './state';

export interface PlanExecuteDeps {
  model: () => BaseChatModel | null;
  tools: () => StructuredToolInterface[];
  stepTimeoutMs: number;
  toolRun?: ToolRunOptions;
}

/** The tool manifest shown to the intent classifier and the planners. */
export function manifestOf(tools: StructuredToolInterface[]): string {
  return tools.map((t) => `- ${t.name}: ${t.description}`).join('\n');
}

export const after_intent_classifier = (s: PlanExecuteStateType) => (s.needs_tool ? 'planner' : 'final_answer');
export const after_planner = (s: PlanExecuteStateType) => (s.error ? 'error_handler' : s.plan.length ? 'executor' : 'final_answer');
export function after_executor(s: PlanExecuteStateType): string {
  const last = s.past_steps[s.past_steps.length - 1];
  if (!last) return 'final_answer';
  if (last.status === 'failure') return 'replanner';
  return s.plan.length ? 'executor' : 'final_answer';
}
export const after_replanner = (s: PlanExecuteStateType) => (s.error ? 'error_handler' : s.plan.length ? 'executor' : 'final_answer');

/** intent_classifier → planner → executor* (→ replanner → executor*) → final_answer | error_handler (seed 004). */
export function buildPlanExecuteGraph(deps: PlanExecuteDeps, checkpointer?: BaseCheckpointSaver) {
  const planning = { model: deps.model, manifest: () => manifestOf(deps.tools()), toolNames: () => deps.tools().map((t) => t.name) };
  return new StateGraph(PlanExecuteState)
    .addNode('intent_classifier', createIntentClassifier(planning))
    .addNode('planner', createPlanner(planning))
    .addNode('executor', createExecutor({ tools: deps.tools, stepTimeoutMs: deps.stepTimeoutMs, toolRun: deps.toolRun }))
    .addNode('replanner', createReplanner(planning))
    .addNode('final_answer', createFinalAnswer({ model: deps.model }))
    .addNode('error_handler', error_handler)
    .addEdge(START, 'intent_classifier')
    .addConditionalEdges('intent_classifier', after_intent_classifier, ['planner', 'final_answer'])
    .addConditionalEdges('planner', after_planner, ['executor', 'final_answer', 'error_handler'])
    .addConditionalEdges('executor', after_executor, ['executor', 'replanner', 'final_answer'])
    .addConditionalEdges('replanner', after_replanner, ['executor', 'final_answer', 'error_handler'])
    .addEdge('final_answer', END)
    .addEdge('error_handler', END)
    .compile({ checkpointer, name: 'plan-execute' });
}
