import { ModuleLoader } from '../../platform/module-loader';
import type { LanggraphConfig } from './langgraph-config';
import { loadModuleExport } from './module-export';

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
export function loadCustomAuth(config: LanggraphConfig, loader = new ModuleLoader()): CustomAuthHandlers | undefined {
  const spec = config.auth;
  if (!spec) return undefined;
  const { value, fail } = loadModuleExport('auth', spec, config, loader);
  const auth = value as { '~handlerCache'?: CustomAuthHandlers };
  const handlers = auth?.['~handlerCache'];
  if (!handlers || typeof handlers !== 'object') fail('the export is not an Auth (new Auth() from "@langchain/langgraph-sdk/auth")');
  return handlers;
}
