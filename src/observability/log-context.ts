import { contextSlot } from './context-slot';
import type { RunObservation } from './run-observation';

/**
 * What every log line carries where it is known. A request's own lines get `request_id` from the request's scope
 * (`withRequest`); a queued run's lines get the id of the request that queued it here.
 */
export interface LogFields {
  request_id?: string;
  tenant_id?: string;
  /** the bearer token's user (`AUTH_USER_CLAIM`, or a custom auth handler's identity); absent for API keys */
  user_id?: string;
  session_id?: string;
  run_id?: string;
  agent?: string;
  node?: string;
}

interface Scope {
  fields: LogFields;
  run?: RunObservation;
  /** the HTTP request being handled (its lines' `request_id` unless the fields name another: a queued run's) */
  requestId?: string;
  /** the tenant a run executes for (auth/tenant.ts `runInTenant`; not a log field) */
  tenant?: string;
  /** who the request is (auth/auth.middleware.ts; auth/tenant.ts `currentPrincipal`; not a log field) */
  principal?: ScopePrincipal;
}

/** the request's principal as this module keeps it (auth/principal.ts `RequestPrincipal`; observability imports no feature module) */
export interface ScopePrincipal {
  tenantId: string;
  userId?: string;
  keyId?: string;
  permissions: readonly string[];
}

/**
 * The one place log context lives: the request middleware and the run observer open a scope, the pino
 * `mixin` reads it for each line, so no call site passes ids around for logging. It also carries the run's
 * tenant for auth/tenant.ts. A slot of LangChain's AsyncLocalStorage rather than a storage of its own: on Node 20
 * each enabled one adds work to every promise the process creates (context-slot.ts).
 */
const scope = contextSlot<Scope>('log-scope');

/** Runs `fn` with `fields` added to the current log context (and `run` as the observed run, when given). */
export function withLogFields<T>(fields: LogFields, fn: () => T, run?: RunObservation): T {
  const parent = scope.get();
  return scope.run(
    {
      fields: { ...parent?.fields, ...fields },
      run: run ?? parent?.run,
      requestId: parent?.requestId,
      tenant: parent?.tenant,
      principal: parent?.principal,
    },
    fn,
  );
}

/** Runs a request's handling with its id, tenant and (a token's) user on its log lines (its principal, set by the authentication, kept). */
export function withRequest<T>(requestId: string, tenantId: string | undefined, user: string | undefined, fn: () => T): T {
  const parent = scope.get();
  return scope.run({ fields: { tenant_id: tenantId, user_id: user }, requestId, tenant: parent?.tenant, principal: parent?.principal }, fn);
}

/** Runs the rest of a request as `principal` (the authentication middleware, once it knows who the request is). */
export function withScopePrincipal<T>(principal: ScopePrincipal, fn: () => T): T {
  return scope.run({ fields: {}, ...scope.get(), principal }, fn);
}

/** The principal of the HTTP request being handled, if any. */
export function scopePrincipal(): ScopePrincipal | undefined {
  return scope.get()?.principal;
}

/** Runs `fn` as executing for `tenant` (auth/tenant.ts `runInTenant`), the rest of the context unchanged. */
export function withScopeTenant<T>(tenant: string, fn: () => T): T {
  return scope.run({ fields: {}, ...scope.get(), tenant }, fn);
}

/** The tenant set by `withScopeTenant` in this async context, if any. */
export function scopeTenant(): string | undefined {
  return scope.get()?.tenant;
}

/** The id of the HTTP request being handled, if any. */
export function currentRequestId(): string | undefined {
  return scope.get()?.requestId;
}

/** A copy of the current fields (pino merges into the object it gets). */
export function logFields(): LogFields {
  const s = scope.get();
  if (!s) return {};
  return s.requestId === undefined ? { ...s.fields } : { request_id: s.requestId, ...s.fields };
}

/** The run being executed in this async context, if any: model calls and tool calls report to it. */
export function currentRun(): RunObservation | undefined {
  return scope.get()?.run;
}
