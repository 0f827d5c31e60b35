/**
 * A run's context as its graph sees it: one typed object under one `configurable` key, put there by the run
 * driver for every graph run (and scope check) of a run. This file names only what every layer knows (the
 * tenant, the run); each module that puts something of its own into the context declares its field beside the
 * code that reads it, by declaration merging — e.g. `llm/run-budget.ts`:
 *
 *   declare module '../core/run-context' { interface RunContext { budget?: RunBudget } }
 *
 * so the context stays typed without this bottom module importing any of them. Not persisted: LangGraph writes
 * only a `configurable`'s primitive values into checkpoint metadata.
 */
export interface RunContext {
  /** whose run this is: tools, knowledge and the store read it from here, never from ambient state */
  tenantId: string;
  runId: string;
  /** the language of the turn's message (core/language.ts), which every user-facing text of the run follows */
  language?: string;
}

/** The one `configurable` key the service defines (besides LangGraph's own `thread_id` and checkpoint keys). */
export const RUN_CONTEXT_KEY = 'run_context';

interface WithConfigurable {
  configurable?: Record<string, unknown>;
}

/** The run's context, when `config` belongs to a graph run the service started. */
export function runContextOf(config: WithConfigurable | undefined): RunContext | undefined {
  const context = config?.configurable?.[RUN_CONTEXT_KEY];
  return isRunContext(context) ? context : undefined;
}

/** The `configurable` entry that carries `context`. */
export function withRunContext(context: RunContext): { [RUN_CONTEXT_KEY]: RunContext } {
  return { [RUN_CONTEXT_KEY]: context };
}

function isRunContext(value: unknown): value is RunContext {
  return typeof value === 'object' && value !== null && typeof (value as { tenantId?: unknown }).tenantId === 'string';
}
