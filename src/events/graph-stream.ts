import { RUN_CONTEXT_KEY } from '../core/run-context';

/**
 * What a run asks to be streamed (its `input.stream`): extra LangGraph stream modes published as events of
 * the same name (`mode|namespace` from subgraphs, as LangGraph Server names them), and REST v1 `token` events.
 */
export interface RunStreamRequest {
  /** LangGraph stream modes whose chunks are published (`values`, `updates`, `messages`, `custom`, …) */
  modes: string[];
  /** also stream subgraphs: events are named `mode|<namespace>` (e.g. `updates|parent:<id>`) */
  subgraphs?: boolean;
  /** publish `token` events `{ node, content }` (REST v1 streaming) from the `messages` mode */
  tokens?: boolean;
  /** publish LangChain `streamEvents` v2 events as `events` events (LangGraph Server's `events` mode; see graph-events.ts) */
  events?: boolean;
  /**
   * a thread event protocol run: LangGraph's protocol stream (`version: 'v3'`: messages as message-start /
   * content-block-* / message-finish, tools, checkpoint envelopes) of every mode the protocol has a channel for,
   * subgraphs included; its events go to the thread's log too (see protocol-run-event-bus.ts)
   */
  protocol?: boolean;
}

export const GRAPH_STREAM_MODES = ['values', 'updates', 'messages', 'custom', 'debug', 'checkpoints', 'tasks', 'tools'] as const;
export type GraphStreamMode = (typeof GRAPH_STREAM_MODES)[number];

/** The run's stream request from its stored input, unknown modes dropped; null when it asked for nothing. */
export function streamRequestOf(value: unknown): RunStreamRequest | null {
  if (!value || typeof value !== 'object') return null;
  const { modes, subgraphs, tokens, events, protocol } = value as Record<string, unknown>;
  if (protocol === true) return { modes: [...PROTOCOL_MODES], subgraphs: true, tokens: false, events: false, protocol: true };
  const known = (Array.isArray(modes) ? modes : []).filter((m): m is GraphStreamMode => GRAPH_STREAM_MODES.includes(m as never));
  return { modes: [...new Set(known)], subgraphs: subgraphs === true, tokens: tokens === true, events: events === true };
}

/** What a protocol run streams (`@langchain/langgraph/stream`'s STREAM_EVENTS_V3_MODES). */
const PROTOCOL_MODES: GraphStreamMode[] = ['values', 'updates', 'messages', 'tools', 'custom', 'tasks'];

/** The modes whose chunks are published: the requested ones, and a protocol run's checkpoint envelopes. */
export function publishedModesOf(request: RunStreamRequest | null): Set<string> {
  return new Set([...(request?.modes ?? []), ...(request?.protocol ? ['checkpoints'] : [])]);
}

/** Extra `graph.stream` options of a run's stream request: a protocol run streams LangGraph's protocol events. */
export function streamOptionsOf(request: RunStreamRequest | null): Record<string, unknown> {
  return request?.protocol ? { version: 'v3' } : {};
}

/** The modes to give `graph.stream`: the ones the caller needs itself plus the requested ones. */
export function graphStreamModes(own: GraphStreamMode[], request: RunStreamRequest | null): GraphStreamMode[] {
  return [...new Set<GraphStreamMode>([...own, ...((request?.modes ?? []) as GraphStreamMode[])])];
}

/** The event name of a chunk: the mode, or `mode|ns1|ns2` for a chunk from a subgraph. */
export function eventNameOf(mode: string, namespace: string[]): string {
  return namespace.length > 0 ? `${mode}|${namespace.join('|')}` : mode;
}

/** Modes whose chunks carry the run's configs (checkpoint and task configs). */
const CONFIG_MODES = new Set(['debug', 'checkpoints', 'tasks']);

/**
 * A chunk as it may be published: the configs that `debug`, `checkpoints` and `tasks` chunks carry lose the run
 * context (the run's live objects: its guard, budget, database handles), LangGraph's internal `__…` keys and
 * callbacks — none of which a client may see, nor the event bus serialize.
 */
export function publishableChunkOf(mode: string, chunk: unknown): unknown {
  return CONFIG_MODES.has(mode) ? withoutInternals(chunk, 0) : chunk;
}

function withoutInternals(v: unknown, depth: number): unknown {
  if (depth > 6 || !v || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => withoutInternals(x, depth + 1));
  if (Object.getPrototypeOf(v) !== Object.prototype) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === 'callbacks') continue;
    out[k] =
      k === 'configurable' && x && typeof x === 'object'
        ? publicConfigurable(x as Record<string, unknown>)
        : withoutInternals(x, depth + 1);
  }
  return out;
}

function publicConfigurable(configurable: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(configurable).filter(([k]) => !k.startsWith('__') && k !== RUN_CONTEXT_KEY));
}
