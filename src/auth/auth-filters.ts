/**
 * A resource handler's filter (`{ owner: "x" }`, `{ owner: { $eq: "x" } }`, `{ tags: { $contains: "a" } }`)
 * on a resource's metadata, as LangGraph Platform applies it.
 */
export type AuthFilters = Record<string, unknown>;

function operand(value: unknown): { op: '$eq' | '$contains' | 'value'; v: unknown } {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    if ('$eq' in o) return { op: '$eq', v: o.$eq };
    if ('$contains' in o) return { op: '$contains', v: o.$contains };
  }
  return { op: 'value', v: value };
}

/**
 * The filter as one JSONB containment (`metadata @> $x`): equality is containment of the value, `$contains` of
 * a list (one value or every value of a list, at the top level, as Postgres list containment).
 */
export function metadataContainment(filters: AuthFilters): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(filters)) {
    const { op, v } = operand(value);
    out[key] = op === '$contains' ? (Array.isArray(v) ? v : [v]) : v;
  }
  return out;
}

/** Whether a resource's metadata (or any object: a store item's fields) passes the filter (in memory). */
export function matchesFilters(metadata: Record<string, unknown> | null | undefined, filters: AuthFilters | undefined): boolean {
  if (!filters) return true;
  return Object.entries(filters).every(([key, value]) => {
    const { op, v } = operand(value);
    const have = metadata?.[key];
    if (op !== '$contains') return have === v;
    if (!Array.isArray(have)) return false;
    return Array.isArray(v) ? v.every((x) => have.includes(x)) : have.includes(v);
  });
}
