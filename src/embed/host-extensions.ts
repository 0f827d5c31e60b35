import type { BaseLanguageModelInterface } from '@langchain/core/language_models/base';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { SetMetadata } from '@nestjs/common';
import type { ZodType } from 'zod';

import type { ScopeSpec } from '../scope/scope.types';

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

export interface OrchestratorToolSpec {
  name: string;
  description: string;
  /** a zod object schema of the method's single argument */
  schema: ZodType;
}

export const ORCHESTRATOR_AGENT = Symbol('agent-orchestrator:agent');
export const ORCHESTRATOR_TOOL = Symbol('agent-orchestrator:tool');

/** Registers a provider as an agent (discovered at start-up; the provider gets its dependencies by injection). */
export const OrchestratorAgent = (spec: OrchestratorAgentSpec): ClassDecorator => SetMetadata(ORCHESTRATOR_AGENT, spec);

/** Registers a provider method as a tool: called with the parsed arguments; its (awaited) return value is the tool output. */
export const OrchestratorTool = (spec: OrchestratorToolSpec): MethodDecorator => SetMetadata(ORCHESTRATOR_TOOL, spec);
