import type { BaseLanguageModelInterface } from '@langchain/core/language_models/base';
import { HumanMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { BaseCheckpointSaver } from '@langchain/langgraph';

import type { ScopeSpec } from '../scope/scope.types';
import type { AgentDefinition, AgentOutcome, AgentState, ToolCallRecord, TurnContext } from './agent-definition';
import { graphOfExport, responseOf } from './custom-graphs/custom-graph.agent';

/** What a host agent's graph factory receives from the service. */
export interface HostAgentContext {
  /** the tools the agent asked for (`tools`), wrapped in the service's tool guard */
  tools: StructuredToolInterface[];
  /** the configured chat model (metered, cached, with retries), or null when no model is configured */
  model: BaseLanguageModelInterface | null;
  /** the service's Postgres checkpointer (a returned `StateGraph` is compiled with it for you) */
  checkpointer: BaseCheckpointSaver;
}

/** What the service knows about a host agent besides its graph. */
export interface OrchestratorAgentSpec {
  name: string;
  description: string;
  /** tool names (built-in or host) handed to the graph factory; unknown or unavailable names are skipped */
  tools?: string[];
  /** when set, messages outside this domain are refused before the graph runs (the built-in agents' scope check) */
  scope?: ScopeSpec;
  /** when LangGraph writes checkpoints (default `async`: after every step) */
  durability?: 'exit' | 'async' | 'sync';
}

/**
 * A host's own LangGraph agent: `graph` returns a `StateGraph` (compiled with the service's checkpointer), a
 * compiled graph, or a promise of either. A turn sends `{ messages: [HumanMessage] }`; the answer is the last
 * AI message, the tools used are the AI messages' tool calls.
 */
export interface HostAgent extends OrchestratorAgentSpec {
  graph(ctx: HostAgentContext): unknown;
}

/** A provider decorated with `@OrchestratorAgent(spec)` implements this. */
export interface OrchestratorAgentProvider {
  graph(ctx: HostAgentContext): unknown;
}

/** Where the agent registry finds a host's agents: provided by the embeddable module (embed/host-catalog.ts). */
export const HOST_AGENTS = Symbol('HOST_AGENTS');

export interface HostAgents {
  agents(): HostAgent[];
}

type MessageInput = { messages: HumanMessage[] };

/** A host agent as the registry holds every agent: its graph compiled with the service's checkpointer. */
export async function hostAgentDefinition(agent: HostAgent, ctx: HostAgentContext): Promise<AgentDefinition<AgentState, MessageInput>> {
  const graph = await graphOfExport(await agent.graph(ctx), ctx.checkpointer, `host agent "${agent.name}"`);
  return {
    name: agent.name,
    description: agent.description,
    graph,
    scope: agent.scope,
    durability: agent.durability,
    buildInput: (turn: TurnContext) => ({ messages: [new HumanMessage(turn.message)] }),
    toOutcome: (values: AgentState, turn: TurnContext): AgentOutcome => ({
      response: responseOf(values),
      toolCalls: toolCallsOf(values, turn),
      sources: [],
      error: null,
      metadata: { host_agent: agent.name },
      trace: { state_keys: Object.keys(values ?? {}) },
    }),
  };
}

/** The tool calls the AI messages of this turn asked for (the messages after the turn's human message). */
function toolCallsOf(values: AgentState, turn: TurnContext): ToolCallRecord[] {
  const messages = Array.isArray(values?.messages) ? (values.messages as Array<Record<string, unknown>>) : [];
  const start = messages.map((m) => m.content).lastIndexOf(turn.message);
  const calls: ToolCallRecord[] = [];
  for (const m of messages.slice(Math.max(start, 0))) {
    const toolCalls = Array.isArray(m.tool_calls) ? (m.tool_calls as Array<{ name: string; args?: Record<string, unknown> }>) : [];
    for (const c of toolCalls) calls.push({ name: c.name, args: c.args ?? {}, status: 'success' });
  }
  return calls;
}
