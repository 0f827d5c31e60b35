/**
 * The paths that need no credential — ONE list, read by every layer that decides it: the authentication
 * middleware (auth.middleware.ts), the global guard (tenant.guard.ts), the rate limit (rate-limit.ts) and
 * langgraph.json's custom auth (which guards everything else of the LangGraph API and REST v1). Paths reach
 * these checks canonical (request-edge.ts refuses dot segments, encoded slashes and the like first), so a
 * prefix match here cannot be escaped by `/health/../x`.
 */

/** When an open path is open: always, or only with METRICS_PUBLIC / DOCS_PUBLIC. */
export type OpenWhen = 'always' | 'metricsPublic' | 'docsPublic';

export interface OpenPath {
  /** `/health`: the path itself and everything under `/health/`; with `exact`, only the path itself */
  path: string;
  exact?: boolean;
  when: OpenWhen;
  /** why it is open (the documentation's table) */
  why: string;
}

export const OPEN_PATHS: readonly OpenPath[] = [
  { path: '/health', when: 'always', why: 'liveness and readiness (never waits for the database)' },
  { path: '/ok', exact: true, when: 'always', why: "LangGraph Server's liveness" },
  { path: '/console', when: 'always', why: 'the static web console (it asks for the key and sends it with each call)' },
  { path: '/favicon.ico', exact: true, when: 'always', why: "the console's icon" },
  { path: '/metrics', when: 'metricsPublic', why: 'Prometheus metrics, with METRICS_PUBLIC=true' },
  { path: '/docs', when: 'docsPublic', why: 'the OpenAPI page and document, with DOCS_PUBLIC=true' },
  { path: '/docs-json', exact: true, when: 'docsPublic', why: 'the OpenAPI document (Swagger default), with DOCS_PUBLIC=true' },
  { path: '/docs-yaml', exact: true, when: 'docsPublic', why: 'the OpenAPI document as YAML, with DOCS_PUBLIC=true' },
];

/**
 * Paths langgraph.json's custom auth leaves to the service's own authentication, as LangGraph Platform leaves
 * them unguarded: the open paths above (whether public or not: the service's key decides then), and `/info`.
 * GETs of `/ui/{graph}/{file}` (the UI bundles' files) are answered before any authentication (ui.controller.ts).
 */
export const NOT_CUSTOM_GUARDED: readonly Pick<OpenPath, 'path' | 'exact'>[] = [...OPEN_PATHS, { path: '/info' }];

/** what the open paths depend on: `config.security` */
export interface OpenPathSettings {
  metricsPublic: boolean;
  docsPublic: boolean;
}

function matches(path: string, open: Pick<OpenPath, 'path' | 'exact'>): boolean {
  return path === open.path || (!open.exact && path.startsWith(`${open.path}/`));
}

/** Whether `path` (canonical, without a mount prefix) needs no credential under these settings. */
export function isOpenPath(path: string, settings: OpenPathSettings): boolean {
  return OPEN_PATHS.some(
    (p) => matches(path, p) && (p.when === 'always' || (p.when === 'metricsPublic' ? settings.metricsPublic : settings.docsPublic)),
  );
}

/** Liveness (`/health`, `/ok`): never authenticated, never rate limited. */
export function isLivenessPath(path: string): boolean {
  return OPEN_PATHS.some((p) => p.when === 'always' && (p.path === '/health' || p.path === '/ok') && matches(path, p));
}

/** Whether langgraph.json's custom auth decides who sends a request to `path` (else the service's own authentication). */
export function customAuthGuards(method: string, path: string): boolean {
  if (NOT_CUSTOM_GUARDED.some((p) => matches(path, p))) return false;
  return !((method === 'GET' || method === 'HEAD') && /^\/ui\/[^/]+\/[^/]+$/.test(path));
}
