import { HumanMessage } from '@langchain/core/messages';
import { Annotation, MessagesAnnotation } from '@langchain/langgraph';

import type { RunError } from '../../database/entities';
import type { Source, TurnContext } from '../agent-definition';
import { channel } from '../shared/state';
import type { PlanStep } from './plan-schema';

export type Intent = 'new_question' | 'follow_up' | 'clarification' | 'chitchat';

export interface PastStep {
  step: PlanStep;
  status: 'success' | 'failure';
  output: string;
  started_at: string;
  duration_ms: number;
  /** what the step's tool cited (search_knowledge_base) */
  sources?: Source[];
}

/** Seed 004's PTEState (`messages` keep the conversation; the rest is per turn). */
export const PlanExecuteState = Annotation.Root({
  ...MessagesAnnotation.spec,
  input: channel(() => ''),
  current_datetime: channel(() => ''),
  intent: channel<Intent>(() => 'new_question'),
  rewritten_query: channel(() => ''),
  needs_tool: channel(() => true),
  constraints: channel(() => ''),
  content_only: channel(() => false),
  plan: channel<PlanStep[]>(() => []),
  past_steps: channel<PastStep[]>(() => []),
  replan_count: channel(() => 0),
  max_replans: channel(() => 2),
  decision_log: channel<Array<Record<string, unknown>>>(() => []),
  error: channel<RunError | null>(() => null),
  result: channel(() => ''),
  /** the model failed mid-turn and the answer is built from what was collected so far */
  degraded: channel(() => false),
});

export type PlanExecuteStateType = typeof PlanExecuteState.State;
export type PlanExecuteUpdate = typeof PlanExecuteState.Update;

/** The update that starts a turn: the input appended, every per-turn field reset (seed 004's initial state). */
export function turnInput(turn: Pick<TurnContext, 'message'>, opts: { maxReplans: number; now: string }): PlanExecuteUpdate {
  return {
    messages: [new HumanMessage(turn.message)],
    input: turn.message,
    current_datetime: opts.now,
    intent: 'new_question',
    rewritten_query: turn.message,
    needs_tool: true,
    constraints: '',
    content_only: false,
    plan: [],
    past_steps: [],
    replan_count: 0,
    max_replans: opts.maxReplans,
    decision_log: [],
    error: null,
    result: '',
    degraded: false,
  };
}
