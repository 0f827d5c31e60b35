/**
 * A resource handler's filter (`{ owner: "x" }`, `{ owner: { $eq: "x" } }`, `{ tags: { $contains: "a" } }`)
 * on a resource's metadata, as LangGraph Platform applies it. Once parsed (parseAuthFilters) it is a frozen
 * object without a prototype whose every value is one of the three forms above.
 */
export type AuthFilters = Readonly<Record<string, unknown>>;

/** A value a filter compares: what JSON and Postgres compare alike (no objects, no arrays). */
export type FilterScalar = string | number | boolean | null;

/** One key's condition: equal to a value, or a list that holds every one of `values`. */
export type FilterClause = { key: string; op: '$eq'; value: FilterScalar } | { key: string; op: '$contains'; values: FilterScalar[] };

/** What a parsed filter may hold: enough for any handler, small enough that a bug cannot send megabytes to SQL. */
export const AUTH_FILTER_LIMITS = { keys: 64, keyChars: 256, listValues: 256, stringChars: 4096 } as const;

/** Keys that reach an object's prototype machinery: never a metadata field a filter may name. */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Why a handler's filter cannot be applied (the handler's key and this reason are logged, never answered). */
export class AuthFilterError extends Error {}

// a high surrogate not followed by a low one, or a low one not preceded by a high one (Postgres refuses them)
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function refuse(why: string): never {
  throw new AuthFilterError(why);
}

/** An object literal or `Object.create(null)`, nothing else (no Date, Map, class instance, array, or a literal's `__proto__`). */
function isPlainObject(value: unknown): value is object {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === null || proto === Object.prototype;
}

/**
 * Every own property of a plain object, read once (non-enumerable ones included: `Object.entries` skipping one
 * would widen the filter). Symbol and reserved keys are refused.
 */
function ownEntries(value: object, where: string): Array<[string, unknown]> {
  return Reflect.ownKeys(value).map((key) => {
    if (typeof key !== 'string') refuse(`${where}: a symbol key`);
    if (RESERVED_KEYS.has(key)) refuse(`${where}: the reserved key "${key}"`);
    return [key, (value as Record<string, unknown>)[key]];
  });
}

/** what a value is, for the log: `a list`, `a Date`, `undefined` */
function kindOf(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'a list';
  if (typeof value !== 'object') return `a ${typeof value}`;
  const proto: unknown = Object.getPrototypeOf(value);
  const name = proto && typeof proto === 'object' ? (proto as { constructor?: { name?: unknown } }).constructor?.name : undefined;
  return isPlainObject(value) ? 'a nested object' : `a ${typeof name === 'string' ? name.slice(0, 32) : 'non-plain object'}`;
}

function scalar(value: unknown, where: string): FilterScalar {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : refuse(`${where}: a number that is not finite`);
  if (typeof value !== 'string') return refuse(`${where}: ${kindOf(value)}, not a string, number, boolean or null`);
  if (value.length > AUTH_FILTER_LIMITS.stringChars) refuse(`${where}: a string over ${AUTH_FILTER_LIMITS.stringChars} characters`);
  if (value.includes('\u0000') || LONE_SURROGATE.test(value)) refuse(`${where}: a string Postgres cannot hold`);
  return value;
}

function list(value: unknown, where: string): FilterScalar[] {
  if (!Array.isArray(value)) return [scalar(value, where)];
  if (Object.getPrototypeOf(value) !== Array.prototype) refuse(`${where}: not a plain list`);
  if (value.length > AUTH_FILTER_LIMITS.listValues) refuse(`${where}: over ${AUTH_FILTER_LIMITS.listValues} values`);
  return Array.from({ length: value.length }, (_, i) => (i in value ? scalar(value[i], `${where}[${i}]`) : refuse(`${where}: a hole`)));
}

/**
 * One key's condition. A value is equality; an operand object holds exactly one of `$eq` (a value) and
 * `$contains` (a value or a list of values). Nested objects and bare lists are refused: Postgres containment
 * would read them as "contains" where the in-memory check reads "equals", and the two sides must agree.
 */
function clauseOf(key: string, value: unknown): FilterClause {
  if (key.length > AUTH_FILTER_LIMITS.keyChars) refuse(`a key over ${AUTH_FILTER_LIMITS.keyChars} characters`);
  if (key.startsWith('$')) refuse(`the operator "${key.slice(0, 32)}" as a key ($or, $and … are not supported)`);
  scalar(key, 'a key');
  if (!isPlainObject(value)) return { key, op: '$eq', value: scalar(value, `"${key}"`) };
  const entries = ownEntries(value, `"${key}"`);
  if (entries.length !== 1) refuse(`"${key}": an operand needs exactly one of $eq, $contains`);
  const [op, operand] = entries[0];
  if (op === '$eq') return { key, op, value: scalar(operand, `"${key}".$eq`) };
  if (op === '$contains') return { key, op, values: list(operand, `"${key}".$contains`) };
  return refuse(`"${key}": the operator "${op.slice(0, 32)}" (only $eq and $contains are supported)`);
}

/** The clauses of a filter, one per key; throws AuthFilterError for anything it cannot apply exactly. */
export function clausesOf(filters: unknown): FilterClause[] {
  if (!isPlainObject(filters)) refuse(Array.isArray(filters) ? 'a list, not an object' : 'not a plain object');
  const entries = ownEntries(filters, 'the filter');
  if (entries.length > AUTH_FILTER_LIMITS.keys) refuse(`over ${AUTH_FILTER_LIMITS.keys} keys`);
  return entries.map(([key, value]) => clauseOf(key, value));
}

/**
 * A handler's filter, read once into a frozen object without a prototype in the platform's form; throws
 * AuthFilterError for anything the service cannot apply exactly (the caller answers 500, never a wider view).
 */
export function parseAuthFilters(raw: unknown): AuthFilters {
  const out = Object.create(null) as Record<string, unknown>;
  for (const c of clausesOf(raw)) {
    out[c.key] = c.op === '$eq' ? c.value : Object.freeze({ __proto__: null, $contains: Object.freeze(c.values) });
  }
  return Object.freeze(out);
}

/**
 * The filter as one JSONB containment (`metadata @> $x`): equality is containment of the value, `$contains` of
 * a list (Postgres list containment). Built from the same clauses as matchesFilters, so SQL and memory agree.
 */
export function metadataContainment(filters: AuthFilters): Record<string, unknown> {
  return Object.fromEntries(clausesOf(filters).map((c) => [c.key, c.op === '$eq' ? c.value : c.values]));
}

/** Whether a resource's metadata (or any object: a store item's fields) passes the filter (in memory). */
export function matchesFilters(metadata: Record<string, unknown> | null | undefined, filters: AuthFilters | undefined): boolean {
  if (!filters) return true;
  return clausesOf(filters).every((c) => {
    const have = metadata && Object.prototype.hasOwnProperty.call(metadata, c.key) ? metadata[c.key] : undefined;
    if (c.op === '$eq') return have === c.value;
    return Array.isArray(have) && c.values.every((x) => have.includes(x));
  });
}
