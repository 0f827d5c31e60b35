/**
 * Which dialect answers a request, from its path — decided here only, for every error answer (the exception filter,
 * the body guards, the authentication edge through the filter, the UI bundles): REST v1 under `/v1/` (also below an
 * embedding host's prefix, `/agents/v1/...`); the LangGraph API's shape everywhere else (its routes, and the
 * service's own: health, metrics, docs — the LangGraph shape carries REST v1's `error` too); A2A's JSON-RPC
 * endpoint (`/a2a/{assistant_id}`) answers every error as a JSON-RPC error object.
 */
export type Dialect = 'rest' | 'langgraph' | 'a2a';

const REST_V1 = /^(\/[\w.-]+)*\/v1\//;
const A2A_RPC = /^(\/[\w.-]+)*\/a2a\/[^/]+\/?$/;

export function dialectOf(path: string | undefined): Dialect {
  if (REST_V1.test(path ?? '')) return 'rest';
  return A2A_RPC.test(path ?? '') ? 'a2a' : 'langgraph';
}
