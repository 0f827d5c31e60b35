import { Annotation, MessagesAnnotation } from '@langchain/langgraph';

import type { RunError } from '../../database/entities';
import type { Source, ToolCallRecord } from '../agent-definition';

export interface AgentOutput {
  agent: string;
  task: string;
  output: string;
}

export interface Delegation {
  agent: string;
  task: string;
  order: number;
}

/** Seed 003's supervisor state; `messages` hold the conversation, the rest is per turn. */
export const SupervisorState = Annotation.Root({
  ...MessagesAnnotation.spec,
  user_message: Annotation<string>,
  next_agent: Annotation<string | null>,
  task: Annotation<string>,
  agent_outputs: Annotation<AgentOutput[]>,
  delegations: Annotation<Delegation[]>,
  routing_count: Annotation<number>,
  max_routings: Annotation<number>,
  /** corrections for the supervisor (unknown agent names, format problems), shown on its next call */
  notes: Annotation<string[]>,
  tool_calls: Annotation<ToolCallRecord[]>,
  /** what the agents' tools cited this turn */
  sources: Annotation<Source[]>,
  final_response: Annotation<string>,
  error: Annotation<RunError | null> /** the model failed mid-turn and the answer is built from what was collected so far */,
  degraded: Annotation<boolean>,
});

export type SupervisorStateType = typeof SupervisorState.State;
export type SupervisorUpdate = typeof SupervisorState.Update;
