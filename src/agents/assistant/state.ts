import { Annotation, MessagesAnnotation } from '@langchain/langgraph';

import type { RunError } from '../../database/entities';
import type { Source, ToolCallRecord } from '../agent-definition';

/** Seed 001's AgentState: recent `messages`, the running `summary`, RAG `context`; the rest is per turn. */
export const AssistantState = Annotation.Root({
  ...MessagesAnnotation.spec,
  user_message: Annotation<string>,
  summary: Annotation<string>({ reducer: (_old, next) => next, default: () => '' }),
  context: Annotation<string>,
  sources: Annotation<Source[]>,
  route: Annotation<'rag' | 'agent'>,
  route_reason: Annotation<string>,
  route_by: Annotation<'rules' | 'model' | 'default'>,
  next_action: Annotation<'tools' | 'end'>,
  iteration_count: Annotation<number>,
  max_iterations: Annotation<number>,
  tool_calls: Annotation<ToolCallRecord[]>,
  summarised: Annotation<boolean>,
  error: Annotation<RunError | null> /** the model failed mid-turn and the answer is built from what was collected so far */,
  degraded: Annotation<boolean>,
});

export type AssistantStateType = typeof AssistantState.State;
export type AssistantUpdate = typeof AssistantState.Update;
