import type { RunIdentity } from '../core/run-types';
import type { RequestPrincipal } from './principal';

export type { RunIdentity } from '../core/run-types';

/** The `configurable` keys LangGraph Platform gives a run's graph about its caller; the service alone sets them. */
export const RUN_AUTH_KEY_PREFIX = 'langgraph_auth_';

/**
 * The identity a run of `principal` acts for: a user (a bearer token's, or the custom auth's); none for an API key
 * or an open service (the tenant's operator is nobody's user: a graph that namespaces by user gets no user, and a
 * client cannot name one).
 */
export function runIdentityOf(principal: RequestPrincipal | undefined): RunIdentity | undefined {
  if (!principal?.userId) return undefined;
  const permissions = [...(principal.claims ? customPermissions(principal.claims) : principal.permissions)];
  const fields = principal.claims ?? { identity: principal.userId, display_name: principal.userId, is_authenticated: true };
  return { user_id: principal.userId, permissions, fields: { ...fields, identity: principal.userId, permissions } };
}

function customPermissions(claims: Record<string, unknown>): string[] {
  const p = claims.permissions;
  return Array.isArray(p) ? p.filter((x): x is string => typeof x === 'string') : [];
}

/** `langgraph_auth_user`, `langgraph_auth_user_id`, `langgraph_auth_permissions` of a run (nothing without a user). */
export function runAuthConfigurable(identity: RunIdentity | undefined): Record<string, unknown> {
  if (!identity) return {};
  return {
    langgraph_auth_user: identity.fields,
    langgraph_auth_user_id: identity.user_id,
    langgraph_auth_permissions: identity.permissions,
  };
}
