import { AsyncLocalStorage } from 'node:async_hooks';

import type { RunObservation } from './run-observation';

/** What every log line carries where it is known (the request id comes from pino-http's request logger). */
export interface LogFields {
  tenant_id?: string;
  session_id?: string;
  run_id?: string;
  agent?: string;
  node?: string;
}

interface Scope {
  fields: LogFields;
  run?: RunObservation;
}

/**
 * The one place log context lives: the request middleware and the run observer open a scope, the pino
 * `mixin` reads it for each line, so no call site passes ids around for logging.
 */
const scope = new AsyncLocalStorage<Scope>();

/** Runs `fn` with `fields` added to the current log context (and `run` as the observed run, when given). */
export function withLogFields<T>(fields: LogFields, fn: () => T, run?: RunObservation): T {
  const parent = scope.getStore();
  return scope.run({ fields: { ...parent?.fields, ...fields }, run: run ?? parent?.run }, fn);
}

/** A copy of the current fields (pino merges into the object it gets). */
export function logFields(): LogFields {
  const s = scope.getStore();
  return s ? { ...s.fields } : {};
}

/** The run being executed in this async context, if any: model calls and tool calls report to it. */
export function currentRun(): RunObservation | undefined {
  return scope.getStore()?.run;
}
