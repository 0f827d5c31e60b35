import { InvalidRequestException } from '../errors';
import { filterBoundsProblem } from '../filter-bounds';

/** Operators PostgresStore's search applies to a `{field: {$op: operand}}` filter; it ignores any other. */
const NUMERIC = new Set(['$gt', '$gte', '$lt', '$lte']);
const LISTS = new Set(['$in', '$nin']);
const OPERATORS = new Set(['$eq', '$ne', '$exists', ...NUMERIC, ...LISTS]);

/**
 * What is wrong with a `/store/items/search` filter, or null. PostgresStore compares `$gt`/`$gte`/`$lt`/`$lte` as
 * SQL numerics (a string operand fails in Postgres), reads `$in`/`$nin` only as a non-empty list and silently
 * drops an unknown operator (the filter would then match more than asked): each is refused here instead.
 */
export function storeFilterProblem(filter: Record<string, unknown>): string | null {
  for (const [field, condition] of Object.entries(filter)) {
    if (!condition || typeof condition !== 'object' || Array.isArray(condition)) continue;
    const keys = Object.keys(condition);
    if (!keys.some((k) => k.startsWith('$'))) continue; // a nested value matched by containment
    for (const op of keys) {
      const operand = (condition as Record<string, unknown>)[op];
      const at = `filter.${field}.${op}`;
      if (!OPERATORS.has(op)) return `${at}: unknown operator; use one of ${[...OPERATORS].join(', ')}`;
      if (NUMERIC.has(op) && !(typeof operand === 'number' && Number.isFinite(operand))) {
        return `${at}: compares numbers; got ${JSON.stringify(operand)?.slice(0, 60) ?? 'nothing'}`;
      }
      if (LISTS.has(op) && !(Array.isArray(operand) && operand.length > 0)) return `${at}: needs a non-empty list`;
      if (op === '$exists' && typeof operand !== 'boolean') return `${at}: needs true or false`;
    }
  }
  return null;
}

/**
 * Refuses (422) what storeFilterProblem finds, and a filter past FILTER_LIMITS (the body's schema refuses it
 * first; checked here too for the service's callers inside the process).
 */
export function checkStoreFilter(filter: Record<string, unknown> | null | undefined): void {
  const bounds = filter ? filterBoundsProblem(filter) : null;
  const problem = bounds ? `filter: ${bounds}` : filter ? storeFilterProblem(filter) : null;
  if (problem) throw new InvalidRequestException(problem);
}

/** Whether a filter compares numbers (the search can then meet a stored value that is not one). */
export function comparesNumbers(filter: Record<string, unknown> | null | undefined): boolean {
  return Object.values(filter ?? {}).some(
    (c) => !!c && typeof c === 'object' && !Array.isArray(c) && Object.keys(c).some((k) => NUMERIC.has(k)),
  );
}
