import { runContextOf } from '../core/run-context';
import { scopePrincipal, scopeTenant, withScopePrincipal, withScopeTenant } from '../observability/log-context';
import type { RequestPrincipal } from './principal';

/** The tenant every request belongs to when no API keys are configured. */
export const DEFAULT_TENANT = 'default';

/** Tenant ids: 1–64 chars of [A-Za-z0-9._-] (no `:`, so `threadIdOf` stays unambiguous). */
export const TENANT_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** Session ids, server-issued (UUIDs) or client-chosen: 1–128 chars of [A-Za-z0-9._:-]. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isSessionId(id: string): boolean {
  return SESSION_ID_PATTERN.test(id);
}

/**
 * UUIDs are the ids the service issues: an unknown UUID is answered 404 (a deleted or mistyped session, or
 * another tenant's), while an unknown client-chosen id starts a session with that id.
 */
export function isServerIssuedId(id: string): boolean {
  return UUID.test(id);
}

/** The LangGraph checkpoint thread of a session: scoped by tenant, since two tenants may share a session id. */
export function threadIdOf(tenantId: string, sessionId: string): string {
  return `${tenantId}:${sessionId}`;
}

/**
 * Runs `fn` with `tenantId` as the current tenant (read by the LLM cache key and, as a fallback, by tools). Kept
 * in the log context's AsyncLocalStorage (observability/log-context.ts), not one of its own: see there why.
 */
export function runInTenant<T>(tenantId: string, fn: () => T): T {
  return withScopeTenant(tenantId, fn);
}

export function currentTenant(): string | undefined {
  return scopeTenant();
}

/** The user of the request being handled (its bearer token's `AUTH_USER_CLAIM`); undefined for an API key. */
export function currentUser(): string | undefined {
  return scopePrincipal()?.userId;
}

/** Who the request being handled is (set by the authentication middleware); undefined outside a request. */
export function currentPrincipal(): RequestPrincipal | undefined {
  return scopePrincipal() as RequestPrincipal | undefined;
}

/** Runs the rest of the request as `principal` (kept in the log context's AsyncLocalStorage, as the tenant). */
export function runAsPrincipal<T>(principal: RequestPrincipal, fn: () => T): T {
  return withScopePrincipal(principal, fn);
}

/** The tenant of a tool call: the graph run's context (core/run-context.ts), else the current tenant. */
export function tenantOf(config?: { configurable?: Record<string, unknown> }): string {
  const fromRun = runContextOf(config)?.tenantId;
  if (fromRun) return fromRun;
  return currentTenant() ?? DEFAULT_TENANT;
}
