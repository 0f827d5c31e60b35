import { HumanMessage } from '@langchain/core/messages';
import { Annotation, MessagesAnnotation } from '@langchain/langgraph';

import type { RunError } from '../../database/entities';
import type { Source, ToolCallRecord, TurnContext } from '../agent-definition';
import { channel } from '../shared/state';

/** Seed 001's AgentState: recent `messages`, the running `summary`, RAG `context`; the rest is per turn. */
export const AssistantState = Annotation.Root({
  ...MessagesAnnotation.spec,
  user_message: channel(() => ''),
  summary: channel(() => ''),
  context: channel(() => ''),
  sources: channel<Source[]>(() => []),
  route: channel<'rag' | 'agent'>(() => 'agent'),
  route_reason: channel(() => ''),
  route_by: channel<'rules' | 'model' | 'default'>(() => 'default'),
  next_action: channel<'tools' | 'end'>(() => 'end'),
  iteration_count: channel(() => 0),
  max_iterations: channel(() => 10),
  tool_calls: channel<ToolCallRecord[]>(() => []),
  summarised: channel(() => false),
  /** the long_term_memory node's system-prompt section: the user's facts recalled for this turn ('' for none) */
  memories: channel(() => ''),
  /** the recalled facts' texts, and the kinds of the facts this turn saved (and who classified them) */
  recalled: channel<string[]>(() => []),
  remembered: channel<string[]>(() => []),
  remembered_by: channel<'rules' | 'model'>(() => 'rules'),
  error: channel<RunError | null>(() => null),
  /** the model failed mid-turn and the answer is built from what was collected so far */
  degraded: channel(() => false),
});

export type AssistantStateType = typeof AssistantState.State;
export type AssistantUpdate = typeof AssistantState.Update;

/** The update that starts a turn (the summary is kept across turns; everything else here is per turn). */
export function turnInput(turn: Pick<TurnContext, 'message'>, limits: { maxIterations: number }): AssistantUpdate {
  return {
    messages: [new HumanMessage(turn.message)],
    user_message: turn.message,
    context: '',
    sources: [],
    next_action: 'end',
    iteration_count: 0,
    max_iterations: limits.maxIterations,
    tool_calls: [],
    summarised: false,
    memories: '',
    recalled: [],
    remembered: [],
    remembered_by: 'rules',
    error: null,
    degraded: false,
  };
}
