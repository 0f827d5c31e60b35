import { HumanMessage } from '@langchain/core/messages';
import { Annotation, MessagesAnnotation } from '@langchain/langgraph';

import type { RunError } from '../../database/entities';
import type { Source, ToolCallRecord, TurnContext } from '../agent-definition';
import { channel } from '../shared/state';

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
  user_message: channel(() => ''),
  next_agent: channel<string | null>(() => null),
  task: channel(() => ''),
  agent_outputs: channel<AgentOutput[]>(() => []),
  delegations: channel<Delegation[]>(() => []),
  routing_count: channel(() => 0),
  max_routings: channel(() => 5),
  /** corrections for the supervisor (unknown agent names, format problems), shown on its next call */
  notes: channel<string[]>(() => []),
  tool_calls: channel<ToolCallRecord[]>(() => []),
  /** what the agents' tools cited this turn */
  sources: channel<Source[]>(() => []),
  final_response: channel(() => ''),
  error: channel<RunError | null>(() => null),
  /** the model failed mid-turn and the answer is built from what was collected so far */
  degraded: channel(() => false),
});

export type SupervisorStateType = typeof SupervisorState.State;
export type SupervisorUpdate = typeof SupervisorState.Update;

/** The update that starts a turn: the user's message appended, every per-turn field reset. */
export function turnInput(turn: Pick<TurnContext, 'message'>, limits: { maxRoutings: number }): SupervisorUpdate {
  return {
    messages: [new HumanMessage(turn.message)],
    user_message: turn.message,
    next_agent: null,
    task: '',
    agent_outputs: [],
    delegations: [],
    routing_count: 0,
    max_routings: limits.maxRoutings,
    notes: [],
    tool_calls: [],
    sources: [],
    final_response: '',
    error: null,
    degraded: false,
  };
}
