import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';
import { getEnvironmentVariable } from '@langchain/core/utils/env';

/** what @langchain/core keeps a runnable's config under in its AsyncLocalStorage store, and context variables */
const LC_CHILD_KEY = Symbol.for('lc:child_config');
const CONTEXT_VARIABLES_KEY = Symbol.for('lc:context_variables');
const TRACING_ENV = ['LANGSMITH_TRACING_V2', 'LANGCHAIN_TRACING_V2', 'LANGSMITH_TRACING', 'LANGCHAIN_TRACING', 'LANGCHAIN_VERBOSE'];

type Store = Record<string | symbol, unknown> & { extra?: Record<string | symbol, unknown>; tracingEnabled?: boolean };
type RunWithConfig = (config: { callbacks?: unknown } | undefined, callback: () => unknown, avoidCreatingRootRunTree?: boolean) => unknown;
interface Provider {
  runWithConfig: RunWithConfig;
  getInstance(): { getStore(): Store | undefined; run(store: unknown, callback: () => unknown): unknown };
}

/**
 * Every LangChain runnable call (~90 in a react turn) enters its config into AsyncLocalStorage through
 * `runWithConfig`, which configures a callback manager (environment reads, context-variable lookups) to find a
 * LangSmith tracer and, finding none, builds a new langsmith `RunTree` (a UUIDv7, a timestamp, ~30 properties) only
 * to carry the config. With tracing off and no callbacks on the call, that is all it does. Installed, such a call
 * gets an object made from one such `RunTree` (`Object.create`): the same config under the same key, the same
 * context variables, still a `RunTree` to `isRunTree` (so `setContextVariable` copies it as before), its own
 * `child_runs` and `events`. Everything else — a call with callbacks (LangGraph's `messages` and `events` stream
 * handlers, a host's handlers), a traced parent, or `avoidCreatingRootRunTree` — takes the original path, and
 * nothing is installed when LangSmith tracing or LangChain's verbose mode is on.
 *
 * Relies on (@langchain/core 1.4.0, langsmith 0.12.0; the canary is fast-runnable-context.spec.ts):
 * `AsyncLocalStorageProviderSingleton.runWithConfig(config, callback, avoidCreatingRootRunTree)` being the one
 * place a runnable enters its config, `getInstance()` returning the storage (a no-op stand-in until LangGraph
 * installs the real one); the store being a langsmith `RunTree` (`extra`, `child_runs`, `events`,
 * `tracingEnabled`) with the config under `extra[Symbol.for('lc:child_config')]` and the context variables under
 * `Symbol.for('lc:context_variables')`.
 *
 * Installed by installPlatformPatches (every entry point: `main.ts`, `worker.ts`, the embeddable module).
 * Returns whether it was installed.
 */
export function fastRunnableContext(provider = AsyncLocalStorageProviderSingleton as Provider): boolean {
  if (TRACING_ENV.some((name) => ['true', '1'].includes(getEnvironmentVariable(name) ?? ''))) return false;
  const original = provider.runWithConfig.bind(provider);
  let template: Store | undefined;
  let templateOf: unknown;
  provider.runWithConfig = (config, callback, avoidCreatingRootRunTree) => {
    const storage = provider.getInstance();
    const previous = storage.getStore();
    if (avoidCreatingRootRunTree || config?.callbacks || previous?.tracingEnabled)
      return original(config, callback, avoidCreatingRootRunTree);
    // built once per storage, the original way and outside any store (no context variables in it); none while
    // LangChain's storage is its no-op stand-in
    if (templateOf !== storage) {
      templateOf = storage;
      template = storage.run(undefined, () => original({}, () => storage.getStore())) as Store | undefined;
    }
    if (!template?.extra) return original(config, callback, avoidCreatingRootRunTree);
    const carrier = Object.create(template) as Store;
    carrier.extra = { ...template.extra, [LC_CHILD_KEY]: config };
    carrier.child_runs = [];
    carrier.events = [];
    if (previous?.[CONTEXT_VARIABLES_KEY] !== undefined) carrier[CONTEXT_VARIABLES_KEY] = previous[CONTEXT_VARIABLES_KEY];
    return storage.run(carrier, callback);
  };
  return true;
}
