/*
 * The run types every layer shares: what a turn reports (tool calls, sources, errors), what it spends (model
 * calls, budgets) and the part of a compiled graph the service drives. The bottom of the layers: imports nothing.
 */

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

/** A state as the orchestrator sees it: the graph's channel values. */
export type AgentState = Record<string, unknown>;

/** The subset of a compiled LangGraph graph the orchestrator uses; `S` is the agent's state. */
export interface RunnableGraph<S = AgentState> {
  stream(input: unknown, options: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  getState(config: { configurable: Record<string, unknown> }): Promise<{ values: S; next: readonly string[] }>;
  /** the compiled LangGraph graph behind a wrapper (state history, updates, drawing: see langgraph-api) */
  readonly compiled?: unknown;
}

export interface RunError {
  code: string;
  message: string;
  /** the class name of the error a custom graph threw (`GRAPH_ERROR`), as LangGraph Platform shows it */
  name?: string;
}

export interface ModelCallRecord {
  node: string;
  ms: number;
  prompt_tokens: number;
  completion_tokens: number;
  error?: string;
  /** answered from the LLM cache: not a call to the endpoint, not counted in `llm_calls` */
  cached?: boolean;
}

/** What a run may spend; 0 = unlimited. Wall time is RUN_TIMEOUT_MS (the run's abort signal), not counted here. */
export interface BudgetLimits {
  /** calls that reach the model endpoint (LLM-cache hits are free) */
  modelCalls: number;
  /** prompt + completion tokens, as the endpoint reports them */
  modelTokens: number;
  /** tool executions */
  toolCalls: number;
}

/**
 * Who a run acts for, as its graph reads it (`langgraph_auth_*`, auth/run-identity.ts): recorded with the run when it
 * is accepted, from the request's one principal, so a run executed later or by another worker process sees the same
 * caller. Never taken from a client.
 */
export interface RunIdentity {
  /** the token user's id, or the custom auth's `identity` */
  user_id: string;
  permissions: string[];
  /** every field the custom auth's `authenticate` returned (normalized), else the token user's basic fields */
  fields: Record<string, unknown>;
}
