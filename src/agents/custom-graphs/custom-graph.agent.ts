import { HumanMessage } from '@langchain/core/messages';
import { type BaseCheckpointSaver, Command } from '@langchain/langgraph';

import type { AgentDefinition, AgentOutcome, AgentState, RunnableGraph, TurnContext } from '../agent-definition';
import type { GraphSpec } from './langgraph-config';

/** A graph module's export, as the LangGraph CLI accepts it. */
type GraphConfig = { configurable?: Record<string, unknown> };
type Compilable = { compile(opts?: { checkpointer?: BaseCheckpointSaver }): unknown };
type Compiled = RunnableGraph & { checkpointer?: unknown; builder?: unknown; graph?: unknown };
type GraphFactory = (config: GraphConfig) => unknown;

/** What a custom graph's turn starts from: the raw LangGraph input, a resume Command, or the user message. */
export type CustomGraphInput = Record<string, unknown>;

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null;
const isCompilable = (x: unknown): x is Compilable => isObject(x) && typeof x.compile === 'function';
const isCompiled = (x: unknown): x is Compiled => isObject(x) && typeof x.stream === 'function' && typeof x.getState === 'function';

/**
 * The graph an export stands for, with the service's checkpointer: a compiled graph (the checkpointer is
 * attached, as the LangGraph server does), an uncompiled `StateGraph` (compiled with it), a promise of either,
 * or a factory `(config) => graph | Promise<graph>` (called for each use with the run's config, as the CLI does).
 */
export async function graphOfExport(exported: unknown, checkpointer: BaseCheckpointSaver, label: string): Promise<RunnableGraph> {
  const value: unknown = await exported;
  if (typeof value === 'function') return new FactoryGraph(value as GraphFactory, checkpointer, label);
  return withCheckpointer(value, checkpointer, label);
}

function withCheckpointer(value: unknown, checkpointer: BaseCheckpointSaver, label: string): RunnableGraph {
  const compiled: unknown = isCompilable(value) ? value.compile({ checkpointer }) : value;
  if (!isCompiled(compiled)) {
    const kind = value === undefined ? 'undefined' : value === null ? 'null' : typeof value;
    throw new Error(`${label} is not a graph (a compiled graph, a StateGraph, or a function returning one), but ${kind}`);
  }
  // createAgent's wrapper exposes the compiled graph as `.graph` (unwrapped as the LangGraph server does)
  const graph = isCompiled(compiled.graph) && isObject(compiled.builder) ? (compiled.graph as Compiled) : compiled;
  graph.checkpointer = checkpointer;
  return graph;
}

type Config = { configurable?: Record<string, unknown> } & Record<string, unknown>;
/** the compiled graph's API beyond RunnableGraph (the LangGraph API's state, history, updates, drawing) */
type PregelLike = RunnableGraph & {
  getStateHistory(config: Config, options?: unknown): AsyncIterable<unknown>;
  updateState(config: Config, values: unknown, asNode?: string): Promise<unknown>;
  getGraphAsync(config: Config): Promise<unknown>;
  getSubgraphsAsync?(namespace?: string, recurse?: boolean): AsyncIterable<unknown>;
};

/**
 * A factory export: each use builds the graph for that use's config, as the LangGraph server does — a run's
 * stream, and the thread's state, history and updates (with the configurable the caller gives).
 */
export class FactoryGraph implements RunnableGraph {
  constructor(
    private readonly factory: GraphFactory,
    private readonly checkpointer: BaseCheckpointSaver,
    private readonly label: string,
  ) {}

  private async build(config: Config | undefined): Promise<PregelLike> {
    const configurable = config?.configurable;
    const made: unknown = await this.factory({ configurable: isObject(configurable) ? configurable : {} });
    return withCheckpointer(made, this.checkpointer, `${this.label} (what its factory returned)`) as PregelLike;
  }

  async stream(input: unknown, options: Record<string, unknown>): Promise<AsyncIterable<unknown>> {
    return (await this.build(options as Config)).stream(input, options);
  }

  async getState(config: { configurable: Record<string, unknown> }, options?: unknown) {
    const graph = (await this.build(config)) as PregelLike & { getState(c: unknown, o?: unknown): ReturnType<RunnableGraph['getState']> };
    return graph.getState(config, options);
  }

  async *getStateHistory(config: Config, options?: unknown): AsyncIterableIterator<unknown> {
    yield* (await this.build(config)).getStateHistory(config, options);
  }

  async updateState(config: Config, values: unknown, asNode?: string): Promise<unknown> {
    return (await this.build(config)).updateState(config, values, asNode);
  }

  async getGraphAsync(config: Config): Promise<unknown> {
    return (await this.build(config)).getGraphAsync(config);
  }

  async *getSubgraphsAsync(namespace?: string, recurse?: boolean): AsyncIterableIterator<unknown> {
    const graph = await this.build(undefined);
    if (graph.getSubgraphsAsync) yield* graph.getSubgraphsAsync(namespace, recurse);
  }
}

/**
 * A graph of `langgraph.json` as an agent: a turn sends `turn.input` when the caller gave a raw LangGraph input
 * (the LangGraph API), a `Command` for `turn.command`, else `{ messages: [HumanMessage(message)] }`; the answer
 * is the last AI message's text, or the final values as JSON when the state has no messages.
 */
export function customGraphAgent(spec: GraphSpec, graph: RunnableGraph): AgentDefinition<AgentState, CustomGraphInput> {
  return {
    name: spec.name,
    description: `Custom graph ${spec.spec} (langgraph.json)`,
    graph,
    showsErrors: true,
    source: { file: spec.file, exportName: spec.exportName },
    buildInput: (turn: TurnContext): CustomGraphInput => {
      // a Command is a class instance (LangGraph checks `lg_name`); spread into the input type it travels as is
      if (turn.command) return commandInput(turn.command);
      if (turn.input) return turn.input;
      return { messages: [new HumanMessage(turn.message)] };
    },
    toOutcome: (values: AgentState): AgentOutcome => ({
      response: responseOf(values),
      toolCalls: [],
      sources: [],
      error: null,
      metadata: { custom_graph: spec.spec },
      trace: { state_keys: Object.keys(values ?? {}) },
    }),
  };
}

function commandInput(command: NonNullable<TurnContext['command']>): CustomGraphInput {
  const cmd = new Command(command);
  return cmd as typeof cmd & CustomGraphInput;
}

/** The last AI message's text; without a messages channel, the final values as JSON. */
export function responseOf(values: AgentState): string {
  const messages = values?.messages;
  if (Array.isArray(messages)) {
    const last = [...messages].reverse().find(isAiMessage);
    if (last) return textOf(last.content);
  }
  return JSON.stringify(values ?? null);
}

function isAiMessage(m: unknown): m is { content: unknown } {
  if (!isObject(m)) return false;
  const type = typeof m.getType === 'function' ? (m.getType as () => string)() : (m.type ?? m.role);
  return type === 'ai' || type === 'assistant';
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === 'string' ? part : isObject(part) && typeof part.text === 'string' ? part.text : ''))
      .join('');
  }
  return JSON.stringify(content ?? '');
}
