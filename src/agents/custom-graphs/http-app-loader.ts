import { ModuleLoader } from '../../platform/module-loader';
import type { LanggraphConfig } from './langgraph-config';
import { loadModuleExport } from './module-export';

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
export function loadHttpApp(config: LanggraphConfig, loader = new ModuleLoader()): UserHttpApp | undefined {
  const spec = config.httpApp;
  if (!spec) return undefined;
  const { value, fail } = loadModuleExport('http.app', spec, config, loader);
  const app = value as Partial<UserHttpApp>;
  if (typeof app?.fetch !== 'function' || !Array.isArray(app.routes)) fail('the export is not a Hono app (new Hono() from "hono")');
  return app as UserHttpApp;
}
