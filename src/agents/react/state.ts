import type { BaseMessage } from '@langchain/core/messages';
import { Annotation, MessagesAnnotation } from '@langchain/langgraph';

import type { RunError } from '../../database/entities';
import type { ToolCallRecord } from '../agent-definition';

/**
 * The seed's AgentState. `messages` accumulate across turns (checkpointed per session);
 * the other fields describe the current turn and are reset by the turn's input.
 */
export const ReactState = Annotation.Root({
  ...MessagesAnnotation.spec,
  user_message: Annotation<string>,
  current_step: Annotation<string>,
  iteration_count: Annotation<number>,
  max_iterations: Annotation<number>,
  /** calls this turn, in order, with their outcome */
  tool_calls: Annotation<ToolCallRecord[]>,
  error: Annotation<RunError | null>,
  response: Annotation<string>,
  /** true when the turn was decided by rules alone (bare arithmetic): the answer needs no model */
  fast_path: Annotation<boolean> /** the model failed mid-turn and the answer is built from what was collected so far */,
  degraded: Annotation<boolean>,
});

export type ReactStateType = typeof ReactState.State;
export type ReactUpdate = typeof ReactState.Update;
export type Messages = BaseMessage[];
