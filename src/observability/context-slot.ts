import { AsyncLocalStorage } from 'node:async_hooks';

import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';

/** where LangChain keeps context variables in its storage's store (`setContextVariable`; langsmith's constants) */
const CONTEXT_VARIABLES = Symbol.for('lc:context_variables');

type Store = Record<symbol, unknown> & { [CONTEXT_VARIABLES]?: Record<symbol, unknown> };
interface Storage {
  getStore(): Store | undefined;
  run<R>(store: Store, fn: () => R): R;
}

/**
 * LangChain's AsyncLocalStorage: the process's one. Created here when nothing has created it yet (LangGraph
 * creates it on import with the same call, which keeps the first), so a slot never lands in LangChain's no-op
 * stand-in.
 */
function langChainStorage(): Storage {
  AsyncLocalStorageProviderSingleton.initializeGlobalInstance(new AsyncLocalStorage());
  return AsyncLocalStorageProviderSingleton.getInstance() as unknown as Storage;
}

const storage = langChainStorage();

/** A value scoped to an async call tree: what an AsyncLocalStorage of its own would give, without one. */
export interface ContextSlot<T> {
  /** the value of the innermost `run` this call descends from, if any */
  get(): T | undefined;
  /** runs `fn` (and everything it starts) with `value` */
  run<R>(value: T, fn: () => R): R;
}

/**
 * A context slot kept in LangChain's AsyncLocalStorage, as one of its context variables, instead of a storage of
 * its own. On Node 20 every enabled AsyncLocalStorage puts its store on every promise the process creates (one
 * property each, beside the two async ids): a second storage makes that four properties, which V8 keeps in a larger
 * array, on each of the ~1,800 promises of a react turn (≈ 130 KB allocated per turn, and the copying). LangChain
 * carries its context variables into every store it makes (each runnable call, `setContextVariable`, langsmith's
 * `traceable`), so a slot's value reaches every node, tool and model call started inside its `run`.
 *
 * `run` opened inside a runnable keeps that runnable's store visible (its config, its trace) through the new
 * store's prototype. Code that replaces LangChain's store outright (langsmith's `withRunTree`, a raw `run` on the
 * storage) drops the slots below it, as it drops LangChain's context variables: what reads a slot for a decision
 * fails closed without it (the LLM cache keys on the tenant: no tenant, no cache).
 */
export function contextSlot<T>(name: string): ContextSlot<T> {
  const key = Symbol(name);
  return {
    get: () => storage.getStore()?.[CONTEXT_VARIABLES]?.[key] as T | undefined,
    run: (value, fn) => {
      const previous = storage.getStore();
      const next: Store = previous === undefined ? {} : (Object.create(previous) as Store);
      next[CONTEXT_VARIABLES] = { ...previous?.[CONTEXT_VARIABLES], [key]: value };
      return storage.run(next, fn);
    },
  };
}
