const LONE_SURROGATES = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** what pgSafeText may have to change: a NUL or a surrogate (paired or not); most text has neither */
// eslint-disable-next-line no-control-regex -- NUL is what this looks for
const SUSPECT = /[\u0000\ud800-\udfff]/;
const MAX_DEPTH = 64;

/** Text Postgres can store: NUL removed (text and jsonb reject it), lone surrogates replaced by U+FFFD. */
export function pgSafeText(s: string): string {
  if (!SUSPECT.test(s)) return s;
  return s.replaceAll('\u0000', '').replace(LONE_SURROGATES, '\ufffd');
}

/**
 * A JSON value Postgres's jsonb accepts, whatever a model or a tool produced: every string and key made
 * pgSafeText, nesting below 64 levels cut off.
 */
export function pgSafeJson<T>(value: T): T {
  return clean(value, 0) as T;
}

function clean(v: unknown, depth: number): unknown {
  if (typeof v === 'string') return pgSafeText(v);
  if (v === null || typeof v !== 'object') return v;
  if (depth >= MAX_DEPTH) return '[nested too deeply]';
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return clean((v as { toJSON(): unknown }).toJSON(), depth);
  if (Array.isArray(v)) return v.map((x) => clean(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[pgSafeText(k)] = clean(x, depth + 1);
  return out;
}
