import type { BaseCheckpointSaver } from '@langchain/langgraph';

import type { AgentState, RunError, RunnableGraph, Source, ToolCallRecord } from '../core/run-types';
import type { ScopeSpec } from '../scope/scope.types';
import type { GraphDefaults } from './custom-graphs/graph-defaults';

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

/** An agent, typed on its graph's state `S` and update `U` (the registry holds them as `AgentDefinition`). */
export interface AgentDefinition<S extends AgentState = AgentState, U = Partial<S>> {
  name: string;
  description: string;
  graph: RunnableGraph<S>;
  /** a `langgraph.json` graph's module and export: its TypeScript source, where `Annotation` state types are read */
  source?: { file: string; exportName: string };
  /**
   * An error thrown in the graph reaches the client with its name and message (`GRAPH_ERROR`), as LangGraph
   * Platform shows a graph's errors: set for `langgraph.json` graphs, whose code is the operator's. Without it
   * (the built-in agents) an unexpected error is `INTERNAL_ERROR` and its text stays in the log.
   */
  showsErrors?: boolean;
  /**
   * When LangGraph writes checkpoints: `async` after every step (a crashed run resumes from its last step —
   * for long, multi-step agents), `exit` once at the end of the turn (a crashed turn re-runs from its start;
   * far fewer writes — for short loops). Default `async`.
   */
  durability?: 'exit' | 'async' | 'sync';
  /**
   * Its final state is its last checkpoint's channel values: every state channel keeps what it is given (LastValue
   * or reducer channels, none ephemeral or custom). A run checkpointed once at its end then takes its result from
   * that checkpoint instead of having the whole state streamed after every step (LangGraph's `values` mode).
   */
  stateInCheckpoint?: boolean;
  /** When set, the orchestrator checks each message against this domain first and refuses what is outside. */
  scope?: ScopeSpec;
  /** The graph's default config and context (LANGGRAPH_CONFIG as JSON): its system assistant's, applied to its runs. */
  defaults?: GraphDefaults;
  /** The state update that starts a new turn (resets per-turn fields, appends the user message). */
  buildInput(turn: TurnContext): U;
  toOutcome(state: S, turn: TurnContext): AgentOutcome;
}

/** Each agent module provides one factory; the registry builds them with the shared checkpointer. */
export interface AgentFactory {
  readonly name: string;
  create(checkpointer: BaseCheckpointSaver): AgentDefinition;
}

/** the shared run types, defined in core/ where the run store, events and tools reach them too */
export type { AgentState, RunnableGraph, Source, ToolCallRecord } from '../core/run-types';

export const AGENT_FACTORIES = Symbol('AGENT_FACTORIES');
