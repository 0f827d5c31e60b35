import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { Annotation, MessagesAnnotation } from '@langchain/langgraph';

import type { RunError } from '../../database/entities';
import type { Source, ToolCallRecord, TurnContext } from '../agent-definition';
import { channel } from '../shared/state';

/**
 * The seed's AgentState. `messages` accumulate across turns (checkpointed per session);
 * the other fields describe the current turn and are reset by the turn's input.
 */
export const ReactState = Annotation.Root({
  ...MessagesAnnotation.spec,
  user_message: channel(() => ''),
  current_step: channel(() => 'start'),
  iteration_count: channel(() => 0),
  max_iterations: channel(() => 5),
  /** calls this turn, in order, with their outcome */
  tool_calls: channel<ToolCallRecord[]>(() => []),
  /** what this turn's tools cited (search_knowledge_base) */
  sources: channel<Source[]>(() => []),
  error: channel<RunError | null>(() => null),
  response: channel(() => ''),
  /** true when the turn was decided by rules alone (bare arithmetic): the answer needs no model */
  fast_path: channel(() => false),
  /** the model failed mid-turn and the answer is built from what was collected so far */
  degraded: channel(() => false),
});

export type ReactStateType = typeof ReactState.State;
export type ReactUpdate = typeof ReactState.Update;
export type Messages = BaseMessage[];

/** The update that starts a turn: the user's message appended, every per-turn field reset. */
export function turnInput(turn: Pick<TurnContext, 'message'>, limits: { maxIterations: number }): ReactUpdate {
  return {
    messages: [new HumanMessage(turn.message)],
    user_message: turn.message,
    current_step: 'start',
    iteration_count: 0,
    max_iterations: limits.maxIterations,
    tool_calls: [],
    sources: [],
    error: null,
    response: '',
    fast_path: false,
    degraded: false,
  };
}
