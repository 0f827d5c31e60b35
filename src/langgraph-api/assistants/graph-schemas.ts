import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';

import type { AgentDefinition } from '../../agents/agent-definition';
import { AppConfig } from '../../config/app-config';
import { type LangGraphGraph } from '../graph-access';
import { type GraphSchema, runtimeSchemaOf } from './runtime-schema';
import { moduleGraphSchema, StaticSchemas } from './static-schema';

/**
 * The JSON schemas of a graph (or of one of its subgraphs), as LangGraph Server derives them: what the compiled
 * graph carries (`StateSchema`, zod with LangGraph's registry, plain zod), else — for a `langgraph.json` graph
 * with an `Annotation` state — what its TypeScript source's types say (parsed off the request thread, once per
 * module; a graph folder without its own `@langchain/langgraph` compiles against the service's), else what its
 * state channels show (the built-in agents, or a source that could not be parsed, did not resolve its types or
 * took longer than LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS — said in a warning naming why).
 */
@Injectable()
export class GraphSchemas implements OnModuleDestroy {
  private readonly logger = new Logger(GraphSchemas.name);
  private readonly statics: StaticSchemas;

  constructor(config: AppConfig) {
    this.statics = new StaticSchemas({ timeoutMs: config.schemaResolveTimeoutMs, log: (line) => this.logger.log(line) });
  }

  onModuleDestroy(): void {
    this.statics.close();
  }

  /**
   * The schemas of `graph` if they are known within `waitMs`; else, at once, what its state channels show, while
   * the parse goes on (its result serves the next call). For callers that must answer now (`/mcp`'s tool list):
   * a first parse takes seconds (4 s on a quiet machine, 15–40 s under load).
   */
  async within(agent: AgentDefinition, graph: LangGraphGraph, waitMs: number): Promise<GraphSchema> {
    let timer: NodeJS.Timeout | undefined;
    const fallback = new Promise<GraphSchema>((resolve) => {
      timer = setTimeout(() => resolve(channelSchemaOf(graph)), waitMs);
    });
    try {
      return await Promise.race([this.of(agent, graph), fallback]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The schemas of `graph` (the agent's root graph, or its subgraph at `namespace`). */
  async of(agent: AgentDefinition, graph: LangGraphGraph, namespace?: string): Promise<GraphSchema> {
    const runtime = runtimeSchemaOf(graph);
    if (runtime) return runtime;
    if (agent.source) {
      const { file, exportName } = agent.source;
      try {
        const found = moduleGraphSchema(await this.statics.of(file, exportName), namespace);
        if (found) return found;
      } catch (err) {
        this.logger.warn({
          msg: 'graph schemas: the TypeScript source could not be read; using the state channels',
          graph: agent.name,
          file,
          err: (err as Error).message,
        });
      }
    }
    return channelSchemaOf(graph);
  }
}

const isStateKey = (k: string) => !k.startsWith('__') && !k.startsWith('branch:') && !k.includes(':');

/** the state keys among `channels`; all of `keys` when there are none (a StateGraph's input is its `__start__` channel) */
function stateKeysOr(channels: string | string[] | undefined, keys: string[]): string[] {
  const named = (channels === undefined ? [] : Array.isArray(channels) ? channels : [channels]).filter(isStateKey);
  return named.length > 0 ? named : keys;
}

/**
 * Schemas from a graph's state channels alone: each state key is a property (`messages` an array of message
 * objects), of any type — an `Annotation`'s value types are not kept at run time. No config keys are known.
 */
export function channelSchemaOf(graph: LangGraphGraph): GraphSchema {
  const keys = Object.keys(graph.channels ?? {}).filter(isStateKey);
  const objectOf = (names: string[]) => ({
    type: 'object',
    properties: Object.fromEntries(names.map((k) => [k, k === 'messages' ? { type: 'array', items: { type: 'object' } } : {}])),
  });
  return {
    state: objectOf(keys),
    input: objectOf(stateKeysOr(graph.inputChannels, keys)),
    output: objectOf(stateKeysOr(graph.outputChannels, keys)),
    config: { type: 'object', properties: {} },
  };
}
