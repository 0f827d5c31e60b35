import { HumanMessage } from '@langchain/core/messages';
import { Annotation, MessagesAnnotation } from '@langchain/langgraph';

import type { RunError } from '../../database/entities';
import type { CollectedInfo } from '../../tools/contract/contract-tools';
import type { Source, TurnContext } from '../agent-definition';
import { channel } from '../shared/state';

export interface PlannedTool {
  tool: string;
  args: Record<string, unknown>;
  reasoning: string;
}

export interface ToolHistoryEntry {
  tool: string;
  args: Record<string, unknown>;
  signature: string;
  status: 'success' | 'error';
  summary: string;
  attempts: number;
}

/** get_contract_structure's outline of the contract. */
export interface ContractStructure {
  articles: Array<{ number: string; index: number; title: string }>;
  exhibits: Array<{ number: string; title: string }>;
  summary: string;
}

/** Seed 000's AgentState. */
export const ContractQaState = Annotation.Root({
  ...MessagesAnnotation.spec,
  contract_id: channel(() => ''),
  user_message: channel(() => ''),
  session_id: channel(() => ''),
  contract_structure: channel<ContractStructure | null>(() => null),
  tool_history: channel<ToolHistoryEntry[]>(() => []),
  collected_info: channel<CollectedInfo[]>(() => []),
  explored_articles: channel<number[]>(() => []),
  unexplored_articles: channel<number[]>(() => []),
  iteration_count: channel(() => 0),
  max_iterations: channel(() => 5),
  decision_log: channel<Array<Record<string, unknown>>>(() => []),
  next_tool: channel<PlannedTool[] | null>(() => null),
  final_response: channel(() => ''),
  sources: channel<Source[]>(() => []),
  error: channel<RunError | null>(() => null),
  /** the model failed mid-turn and the answer is built from what was collected so far */
  degraded: channel(() => false),
});

export type ContractQaStateType = typeof ContractQaState.State;
export type ContractQaUpdate = typeof ContractQaState.Update;

/** The update that starts a turn: the question appended, every per-turn field reset (seed 000's initial state). */
export function turnInput(
  turn: Pick<TurnContext, 'message' | 'sessionId' | 'contractId'>,
  limits: { maxIterations: number },
): ContractQaUpdate {
  return {
    messages: [new HumanMessage(turn.message)],
    contract_id: turn.contractId ?? '',
    user_message: turn.message,
    session_id: turn.sessionId,
    contract_structure: null,
    tool_history: [],
    collected_info: [],
    explored_articles: [],
    unexplored_articles: [],
    iteration_count: 0,
    max_iterations: limits.maxIterations,
    decision_log: [],
    next_tool: null,
    final_response: '',
    sources: [],
    error: null,
    degraded: false,
  };
}
