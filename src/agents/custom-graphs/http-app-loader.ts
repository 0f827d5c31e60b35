import { GraphModuleLoader } from './graph-module-loader';
import type { LanggraphConfig } from './langgraph-config';

/** What this service needs of the user's `http.app`: a Hono app (routes, middleware, error handler, fetch). */
export interface UserHttpApp {
  fetch(request: Request, env?: unknown): Response | Promise<Response>;
  routes: unknown[];
}

/**
 * The export named by `http.app` of a `langgraph.json`, loaded as the graph modules are (TypeScript and ES
 * modules without a build step; `hono` and `@langchain/*` resolve to the service's packages first, then the
 * module's own node_modules). It must be a Hono app; any problem is an error naming the file and export.
 */
export function loadHttpApp(config: LanggraphConfig, loader = new GraphModuleLoader()): UserHttpApp | undefined {
  const spec = config.httpApp;
  if (!spec) return undefined;
  const fail = (why: string, cause?: unknown): never => {
    throw new Error(
      `Cannot load http.app "${spec.spec}" (${spec.file}, export "${spec.exportName}") from LANGGRAPH_CONFIG ${config.path}: ${why}`,
      {
        cause,
      },
    );
  };
  let exports: Record<string, unknown> = {};
  try {
    exports = loader.load(spec.file);
  } catch (err) {
    fail((err as Error).message, err);
  }
  const app = exports[spec.exportName] as Partial<UserHttpApp> | undefined;
  if (app === undefined) fail(`the module has no export "${spec.exportName}" (its exports: ${Object.keys(exports).join(', ') || 'none'})`);
  if (typeof app?.fetch !== 'function' || !Array.isArray(app.routes)) fail('the export is not a Hono app (new Hono() from "hono")');
  return app as UserHttpApp;
}
