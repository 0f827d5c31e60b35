import { RUN_CONTEXT_KEY } from '../../core/run-context';

/**
 * The `debug`, `tasks` and `checkpoints` chunks of a run as LangGraph Server streams them: checkpoint configs also
 * as `checkpoint` / `parent_checkpoint` references (`{ thread_id, checkpoint_id, checkpoint_ns, checkpoint_map }`),
 * `parentConfig` as `parent_config`, a task's `state` config as its `checkpoint`, and no internal configurable keys
 * (LangGraph's `__…`, the service's run context) or callbacks in the configs a client sees.
 */

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** A checkpoint's reference from a config naming it (null when it names no checkpoint). */
export function checkpointRefOf(config: unknown): Obj | null {
  const c = isObj(config) && isObj(config.configurable) ? config.configurable : null;
  if (!c || typeof c.thread_id !== 'string' || typeof c.checkpoint_id !== 'string') return null;
  return {
    thread_id: c.thread_id,
    checkpoint_id: c.checkpoint_id,
    checkpoint_ns: typeof c.checkpoint_ns === 'string' ? c.checkpoint_ns : '',
    checkpoint_map: isObj(c.checkpoint_map) ? c.checkpoint_map : null,
  };
}

/** A task's checkpoint from its `state` config (its checkpoint id may be unknown yet). */
function taskCheckpointOf(config: unknown): Obj | null {
  const c = isObj(config) && isObj(config.configurable) ? config.configurable : null;
  if (!c || typeof c.thread_id !== 'string') return null;
  return {
    thread_id: c.thread_id,
    checkpoint_id: typeof c.checkpoint_id === 'string' && c.checkpoint_id ? c.checkpoint_id : null,
    checkpoint_ns: typeof c.checkpoint_ns === 'string' ? c.checkpoint_ns : '',
    checkpoint_map: isObj(c.checkpoint_map) ? c.checkpoint_map : null,
  };
}

/** A config without callbacks and without the configurable keys a client never sees. */
export function publicConfigOf(config: unknown): unknown {
  if (!isObj(config) || !isObj(config.configurable)) return config;
  const configurable = Object.fromEntries(
    Object.entries(config.configurable).filter(([k]) => !k.startsWith('__') && k !== RUN_CONTEXT_KEY),
  );
  const out: Obj = { ...config, configurable };
  delete out.callbacks;
  return out;
}

/** A task of a debug checkpoint or of `tasks` mode: its `state` config becomes its `checkpoint`. */
export function apiTaskOf(task: unknown): unknown {
  if (!isObj(task)) return task;
  const checkpoint = taskCheckpointOf(task.state);
  if (!checkpoint) return task;
  const out: Obj = { ...task, checkpoint };
  delete out.state;
  return out;
}

/** The payload of a `debug` checkpoint (or of a `checkpoints` chunk). */
export function apiCheckpointPayloadOf(payload: unknown): unknown {
  if (!isObj(payload)) return payload;
  const { parentConfig, ...rest } = payload;
  const out: Obj = {
    ...rest,
    checkpoint: checkpointRefOf(payload.config),
    parent_checkpoint: checkpointRefOf(parentConfig),
    tasks: Array.isArray(payload.tasks) ? payload.tasks.map(apiTaskOf) : payload.tasks,
    config: publicConfigOf(payload.config),
  };
  if (parentConfig !== undefined) out.parent_config = publicConfigOf(parentConfig);
  return out;
}

/** A `debug` chunk: checkpoints and task results in the API's shape, other chunks as they are. */
export function apiDebugChunkOf(chunk: unknown): unknown {
  if (!isObj(chunk)) return chunk;
  if (chunk.type === 'checkpoint') return { ...chunk, payload: apiCheckpointPayloadOf(chunk.payload) };
  if (chunk.type === 'task_result') return { ...chunk, payload: apiTaskOf(chunk.payload) };
  return chunk;
}

/** A `checkpoints` chunk: the checkpoint's values, metadata and next nodes (LangGraph Server sends no more). */
export function apiCheckpointsChunkOf(chunk: unknown): unknown {
  if (!isObj(chunk)) return chunk;
  return { values: chunk.values, metadata: chunk.metadata, next: chunk.next };
}

/** A chunk of `mode` as the API streams it. */
export function apiChunkOf(mode: string, data: unknown): unknown {
  if (mode === 'debug') return apiDebugChunkOf(data);
  if (mode === 'tasks') return apiTaskOf(data);
  if (mode === 'checkpoints') return apiCheckpointsChunkOf(data);
  return data;
}
