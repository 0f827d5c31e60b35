import { z } from 'zod';

/**
 * The bounds of a search filter a client sends (`/store/items/search`'s `filter`; the `metadata` and `values` of
 * the thread, assistant, cron and history searches). Past them a filter is not a question a client asks but a
 * load: 70,000 `$in` values are 70,000 SQL parameters (Postgres takes 65,535, then the request was a 500).
 */
export const FILTER_LIMITS = {
  /** values in the whole filter: the scalars, each list's items included */
  values: 1000,
  /** levels of objects and lists inside the filter */
  depth: 8,
  /** characters of one key */
  keyChars: 256,
  /** characters of the filter as JSON */
  jsonChars: 64 * 1024,
} as const;

const TOO_MANY_VALUES = `over the limit of ${FILTER_LIMITS.values} values per filter`;

/**
 * What exceeds FILTER_LIMITS in `filter`, naming the limit, or null. Iterative and stops at the first excess,
 * so a hostile filter costs no more than the limits.
 */
export function filterBoundsProblem(filter: unknown): string | null {
  let values = 0;
  const stack: Array<{ v: unknown; depth: number }> = [{ v: filter, depth: 0 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop()!;
    if (v === null || typeof v !== 'object') {
      if (++values > FILTER_LIMITS.values) return TOO_MANY_VALUES;
      continue;
    }
    if (depth >= FILTER_LIMITS.depth) return `nested over the limit of ${FILTER_LIMITS.depth} levels`;
    const children = Array.isArray(v) ? (v as unknown[]) : Object.values(v);
    if (!Array.isArray(v)) {
      const long = Object.keys(v).find((k) => k.length > FILTER_LIMITS.keyChars);
      if (long !== undefined) return `a key of ${long.length} characters, over the limit of ${FILTER_LIMITS.keyChars} characters per key`;
    }
    // a list or object larger than what is left of the budget: refused before its items are visited
    if (children.length > FILTER_LIMITS.values) return TOO_MANY_VALUES;
    for (const child of children) stack.push({ v: child, depth: depth + 1 });
  }
  const chars = JSON.stringify(filter)?.length ?? 0;
  if (chars > FILTER_LIMITS.jsonChars)
    return `${chars} characters as JSON, over the limit of ${FILTER_LIMITS.jsonChars} characters per filter`;
  return null;
}

/** A search filter: an object within FILTER_LIMITS (a 422 naming the limit otherwise, as every body's schema error). */
export const boundedFilter = z.record(z.string(), z.unknown()).superRefine((filter, ctx) => {
  const problem = filterBoundsProblem(filter);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
