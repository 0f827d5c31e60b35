/**
 * Values as LangGraph Server puts them on the wire: a LangChain message (anything with `toDict()`) becomes
 * `{ ...data, type }` — `{ type: 'human' | 'ai' | 'tool' | 'system', content, id, tool_calls, ... }` — as
 * `serialiseAsDict` in langgraphjs `libs/langgraph-api/src/utils/serde.mts` does; everything else is copied
 * as JSON would copy it (Dates become ISO strings, functions and undefined are dropped).
 */
export function toWire(value: unknown): unknown {
  return walk(value, 0);
}

const MAX_DEPTH = 64;

function walk(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'function' || typeof value === 'bigint' ? undefined : value;
  if (depth > MAX_DEPTH) return null;
  const dictable = value as { toDict?: () => { type: string; data: Record<string, unknown> } };
  if (typeof dictable.toDict === 'function') {
    const { type, data } = dictable.toDict();
    return walk({ ...data, type }, depth + 1);
  }
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((v) => walk(v, depth + 1) ?? null);
  const toJSON = (value as { toJSON?: () => unknown }).toJSON;
  if (typeof toJSON === 'function' && !(value.constructor === Object)) return walk(toJSON.call(value), depth + 1);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const w = walk(v, depth + 1);
    if (w !== undefined) out[k] = w;
  }
  return out;
}
