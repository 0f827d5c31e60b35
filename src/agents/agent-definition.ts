import type { BaseCheckpointSaver } from '@langchain/langgraph';

import type { RunError } from '../database/entities';
import type { ScopeSpec } from '../scope/scope.types';

export interface ToolCallRecord {
  name: string;
  args: Record<string, unknown>;
  /** `blocked` / `rejected`: stopped by the tool guard or an operator before it ran (tools/tool-guard.ts) */
  status: 'success' | 'error' | 'blocked' | 'rejected';
  agent?: string;
}

export interface Source {
  kind: string;
  ref: string;
  title?: string;
  [key: string]: unknown;
}

/** What the orchestrator knows about the turn an agent is asked to take. */
export interface TurnContext {
  runId: string;
  sessionId: string;
  message: string;
  contractId?: string;
  metadata: Record<string, unknown>;
  /** the raw LangGraph input of a LangGraph API run (custom graphs send it instead of the message form) */
  input?: Record<string, unknown>;
  /** a LangGraph API run's `command` (resume / update / goto), for graphs that take one */
  command?: { resume?: unknown; update?: Record<string, unknown> | [string, unknown][]; goto?: string | string[] };
}

/** What an agent reports when its graph has finished a turn. */
export interface AgentOutcome {
  response: string;
  toolCalls: ToolCallRecord[];
  sources: Source[];
  error: RunError | null;
  metadata: Record<string, unknown>;
  /** decision_log, tool_history, past_steps, plan … — whatever this agent keeps (see the trace endpoint) */
  trace: Record<string, unknown>;
  /** the conversation's running summary, when the agent keeps one (shown by GET /v1/sessions/{id}) */
  summary?: string;
}

/** A state as the orchestrator sees it: the graph's channel values. */
export type AgentState = Record<string, unknown>;

/** The subset of a compiled LangGraph graph the orchestrator uses; `S` is the agent's state. */
export interface RunnableGraph<S = AgentState> {
  stream(input: unknown, options: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  getState(config: { configurable: Record<string, unknown> }): Promise<{ values: S; next: readonly string[] }>;
  /** the compiled LangGraph graph behind a wrapper (state history, updates, drawing: see langgraph-api) */
  readonly compiled?: unknown;
}

/** An agent, typed on its graph's state `S` and update `U` (the registry holds them as `AgentDefinition`). */
export interface AgentDefinition<S extends AgentState = AgentState, U = Partial<S>> {
  name: string;
  description: string;
  graph: RunnableGraph<S>;
  /**
   * When LangGraph writes checkpoints: `async` after every step (a crashed run resumes from its last step —
   * for long, multi-step agents), `exit` once at the end of the turn (a crashed turn re-runs from its start;
   * far fewer writes — for short loops). Default `async`.
   */
  durability?: 'exit' | 'async' | 'sync';
  /** When set, the orchestrator checks each message against this domain first and refuses what is outside. */
  scope?: ScopeSpec;
  /** The state update that starts a new turn (resets per-turn fields, appends the user message). */
  buildInput(turn: TurnContext): U;
  toOutcome(state: S, turn: TurnContext): AgentOutcome;
}

/** Each agent module provides one factory; the registry builds them with the shared checkpointer. */
export interface AgentFactory {
  readonly name: string;
  create(checkpointer: BaseCheckpointSaver): AgentDefinition;
}

export const AGENT_FACTORIES = Symbol('AGENT_FACTORIES');
