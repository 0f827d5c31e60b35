import { isBaseMessage } from '@langchain/core/messages';

/**
 * A value of a graph stream chunk as plain JSON, the way LangGraph Server sends it: LangChain messages (and
 * message chunks) become `{ type: 'human' | 'ai' | 'tool' | 'system' | …, content, id, name, tool_calls,
 * tool_call_id, additional_kwargs, response_metadata, usage_metadata, … }` (their `toDict()` data with the type),
 * other objects are walked; keys whose value is undefined are left out, as JSON leaves them out; what JSON cannot hold (functions, symbols, cycles) is left out.
 */
export function toWire(value: unknown): unknown {
  return walk(value, new WeakSet());
}

function walk(value: unknown, seen: WeakSet<object>): unknown {
  if (value === null || value === undefined) return value ?? null;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return typeof value === 'function' || typeof value === 'symbol' ? undefined : value;
  if (seen.has(value)) return undefined;
  seen.add(value);
  try {
    if (isBaseMessage(value)) return messageToWire(value, seen);
    if (Array.isArray(value)) return value.map((v) => walk(v, seen) ?? null);
    if (value instanceof Date) return value.toISOString();
    if (value instanceof Map) return walkObject(Object.fromEntries(value), seen);
    if (value instanceof Set) return [...value].map((v) => walk(v, seen) ?? null);
    if (value instanceof Error) return { error: value.name, message: value.message };
    const toJSON = (value as { toJSON?: () => unknown }).toJSON;
    if (typeof toJSON === 'function') return walk(toJSON.call(value), seen);
    return walkObject(value as Record<string, unknown>, seen);
  } finally {
    seen.delete(value);
  }
}

function walkObject(obj: Record<string, unknown>, seen: WeakSet<object>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined) continue; // as JSON leaves it out (LangGraph Server sends no key for it)
    const w = walk(v, seen);
    if (w !== undefined) out[k] = w;
  }
  return out;
}

function messageToWire(m: import('@langchain/core/messages').BaseMessage, seen: WeakSet<object>): Record<string, unknown> {
  const { type, data } = m.toDict();
  const base: Record<string, unknown> = {
    content: m.content,
    additional_kwargs: {},
    response_metadata: {},
    type,
    id: m.id ?? null,
  };
  if (type === 'ai') Object.assign(base, { tool_calls: [], invalid_tool_calls: [] });
  return { ...base, ...walkObject(data as unknown as Record<string, unknown>, seen), type };
}
