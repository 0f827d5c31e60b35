import { Annotation, MessagesAnnotation } from '@langchain/langgraph';

import type { RunError } from '../../database/entities';
import type { PlanStep } from './plan-schema';

export type Intent = 'new_question' | 'follow_up' | 'clarification' | 'chitchat';

export interface PastStep {
  step: PlanStep;
  status: 'success' | 'failure';
  output: string;
  started_at: string;
  duration_ms: number;
}

/** Seed 004's PTEState (`messages` keep the conversation; the rest is per turn). */
export const PlanExecuteState = Annotation.Root({
  ...MessagesAnnotation.spec,
  input: Annotation<string>,
  current_datetime: Annotation<string>,
  intent: Annotation<Intent>,
  rewritten_query: Annotation<string>,
  needs_tool: Annotation<boolean>,
  constraints: Annotation<string>,
  content_only: Annotation<boolean>,
  plan: Annotation<PlanStep[]>,
  past_steps: Annotation<PastStep[]>,
  replan_count: Annotation<number>,
  max_replans: Annotation<number>,
  decision_log: Annotation<Array<Record<string, unknown>>>,
  error: Annotation<RunError | null>,
  result: Annotation<string> /** the model failed mid-turn and the answer is built from what was collected so far */,
  degraded: Annotation<boolean>,
});

export type PlanExecuteStateType = typeof PlanExecuteState.State;
export type PlanExecuteUpdate = typeof PlanExecuteState.Update;
