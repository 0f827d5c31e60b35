import { Annotation, MessagesAnnotation } from '@langchain/langgraph';

import type { RunError } from '../../database/entities';
import type { Source } from '../agent-definition';

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

/** What a tool found: articles with their text, search hits, or the structure. */
export interface CollectedInfo {
  tool: string;
  summary: string;
  articles?: Array<{ number: string; index: number; title: string; text: string; contract_id: string; standard?: boolean }>;
  exhibits?: Array<{ number: string; title: string; content: string }>;
  hits?: Array<{ number: string; index: number; title: string; snippet: string }>;
  /** the contract's exhibits by number and title (get_contract_structure) */
  exhibit_titles?: Array<{ number: string; title: string }>;
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
  contract_id: Annotation<string>,
  user_message: Annotation<string>,
  session_id: Annotation<string>,
  contract_structure: Annotation<ContractStructure | null>,
  tool_history: Annotation<ToolHistoryEntry[]>,
  collected_info: Annotation<CollectedInfo[]>,
  explored_articles: Annotation<number[]>,
  unexplored_articles: Annotation<number[]>,
  iteration_count: Annotation<number>,
  max_iterations: Annotation<number>,
  decision_log: Annotation<Array<Record<string, unknown>>>,
  next_tool: Annotation<PlannedTool[] | null>,
  final_response: Annotation<string>,
  sources: Annotation<Source[]>,
  error: Annotation<RunError | null> /** the model failed mid-turn and the answer is built from what was collected so far */,
  degraded: Annotation<boolean>,
});

export type ContractQaStateType = typeof ContractQaState.State;
export type ContractQaUpdate = typeof ContractQaState.Update;
