import { GraphModuleLoader } from './graph-module-loader';
import type { LanggraphConfig } from './langgraph-config';

/** What a resource handler of the custom auth is called with (as LangGraph Platform calls it). */
export interface AuthHandlerArgs {
  event: string;
  resource: string;
  action: string;
  value: Record<string, unknown>;
  user: Record<string, unknown>;
  permissions: string[];
}

/** The handlers an `Auth` of `@langchain/langgraph-sdk/auth` keeps (`~handlerCache`). */
export interface CustomAuthHandlers {
  authenticate?: (request: Request) => unknown;
  callbacks?: Record<string, (args: AuthHandlerArgs) => unknown>;
}

/**
 * The export named by `auth.path` of a `langgraph.json`, loaded as the graph modules are; it must be an `Auth`
 * (`new Auth()` of `@langchain/langgraph-sdk/auth`). Returns its handlers; any problem is an error naming the file.
 */
export function loadCustomAuth(config: LanggraphConfig, loader = new GraphModuleLoader()): CustomAuthHandlers | undefined {
  const spec = config.auth;
  if (!spec) return undefined;
  const fail = (why: string, cause?: unknown): never => {
    throw new Error(
      `Cannot load auth "${spec.spec}" (${spec.file}, export "${spec.exportName}") from LANGGRAPH_CONFIG ${config.path}: ${why}`,
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
  const auth = exports[spec.exportName] as { '~handlerCache'?: CustomAuthHandlers } | undefined;
  if (auth === undefined) fail(`the module has no export "${spec.exportName}" (its exports: ${Object.keys(exports).join(', ') || 'none'})`);
  const handlers = auth?.['~handlerCache'];
  if (!handlers || typeof handlers !== 'object') fail('the export is not an Auth (new Auth() from "@langchain/langgraph-sdk/auth")');
  return handlers;
}
