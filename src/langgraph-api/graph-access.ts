import type { RunnableConfig } from '@langchain/core/runnables';
import type { StateSnapshot } from '@langchain/langgraph';

import type { AgentDefinition } from '../agents/agent-definition';
import { toWire } from './serde';

/**
 * What the LangGraph API reads from a compiled graph beyond the orchestrator's `RunnableGraph`: state and
 * history through the checkpointer, state updates, the drawable graph and subgraphs (all on LangGraph's
 * `Pregel`, which every registered graph is).
 */
export interface LangGraphGraph {
  channels?: Record<string, unknown>;
  nodes?: Record<string, unknown>;
  inputChannels?: string | string[];
  outputChannels?: string | string[];
  getState(config: RunnableConfig, options?: { subgraphs?: boolean }): Promise<StateSnapshot>;
  getStateHistory(
    config: RunnableConfig,
    options?: { limit?: number; before?: RunnableConfig; filter?: Record<string, unknown> },
  ): AsyncIterableIterator<StateSnapshot>;
  updateState(config: RunnableConfig, values: unknown, asNode?: string): Promise<RunnableConfig>;
  bulkUpdateState(
    config: RunnableConfig,
    supersteps: Array<{ updates: Array<{ values?: unknown; asNode?: string }> }>,
  ): Promise<RunnableConfig>;
  getGraphAsync(config: RunnableConfig & { xray?: boolean | number }): Promise<{ toJSON(): Record<string, unknown> }>;
  getSubgraphsAsync?(namespace?: string, recurse?: boolean): AsyncIterable<[string, LangGraphGraph]>;
}

/** The compiled graph of an agent (unwrapped when the agent wraps it, e.g. `endOnModelOutage`). */
export function graphOf(agent: AgentDefinition): LangGraphGraph {
  return (agent.graph.compiled ?? agent.graph) as LangGraphGraph;
}

/** A checkpoint reference as the API shows it: the client's thread id, never the tenant-scoped one. */
export interface WireCheckpoint {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string | null;
  checkpoint_map: Record<string, unknown> | null;
}

export function checkpointOf(config: RunnableConfig | undefined, threadId: string): WireCheckpoint | null {
  const c = config?.configurable;
  if (!c?.checkpoint_id) return null;
  return {
    thread_id: threadId,
    checkpoint_ns: typeof c.checkpoint_ns === 'string' ? c.checkpoint_ns : '',
    checkpoint_id: String(c.checkpoint_id),
    checkpoint_map: (c.checkpoint_map as Record<string, unknown> | undefined) ?? null,
  };
}

/**
 * A task's checkpoint (a subgraph's, before it has one of its own: no `checkpoint_id` yet) as LangGraph Server shows
 * it: the task config's `configurable` (`thread_id`, `checkpoint_ns`…), with the client's thread id.
 */
function taskCheckpointOf(config: RunnableConfig, threadId: string): Record<string, unknown> | null {
  const c = config.configurable;
  if (!c) return null;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(c)) if (!k.startsWith('__') && v !== undefined) out[k] = k === 'thread_id' ? threadId : v;
  return toWire(out) as Record<string, unknown>;
}

/** Checkpoint metadata without what is internal: the tenant-scoped thread id, tenant and run plumbing. */
function publicMetadata(metadata: Record<string, unknown> | undefined, threadId: string): Record<string, unknown> | null {
  if (!metadata) return null;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(metadata)) {
    if (k === 'tenant_id' || k.startsWith('__')) continue;
    if (k === 'checkpoint_ns' && v === '') continue;
    out[k] = k === 'thread_id' ? threadId : v;
  }
  return toWire(out) as Record<string, unknown>;
}

/** A StateSnapshot as LangGraph Server's ThreadState (`stateSnapshotToThreadState` in the reference). */
export function toThreadState(s: StateSnapshot, threadId: string): Record<string, unknown> {
  return {
    values: toWire(s.values) ?? {},
    next: [...(s.next ?? [])],
    tasks: (s.tasks ?? []).map((t) => ({
      id: t.id,
      name: t.name,
      path: t.path,
      error:
        t.error != null
          ? t.error instanceof Error
            ? t.error.message
            : String((t.error as { message?: unknown }).message ?? t.error)
          : null,
      interrupts: toWire(t.interrupts ?? []),
      checkpoint: t.state && 'configurable' in t.state && !('values' in t.state) ? taskCheckpointOf(t.state, threadId) : null,
      state: t.state && 'values' in t.state ? toThreadState(t.state, threadId) : null,
      result: toWire(t.result) ?? null,
    })),
    metadata: publicMetadata(s.metadata as Record<string, unknown> | undefined, threadId),
    created_at: s.createdAt ?? null,
    checkpoint: checkpointOf(s.config, threadId),
    parent_checkpoint: checkpointOf(s.parentConfig, threadId),
  };
}

/** The state of a thread that has no checkpoint (or no graph) yet. */
export function emptyThreadState(): Record<string, unknown> {
  return { values: {}, next: [], tasks: [], metadata: null, created_at: null, checkpoint: null, parent_checkpoint: null };
}

/** The interrupts of a state, by task id (the Thread's `interrupts`). */
export function interruptsOf(s: StateSnapshot): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const t of s.tasks ?? []) if (t.interrupts?.length) out[t.id] = toWire(t.interrupts) as unknown[];
  return out;
}
