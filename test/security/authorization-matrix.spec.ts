import { defineMatrix, useTokenWorld } from './authorization-world';

/**
 * Authorization by action × resource × principal, generated from the app's route table: every route (REST v1,
 * the LangGraph API, /mcp, /ui, the http app, /internal) has a rule in authorization-rules.ts, and each of its
 * cases is tried as the owner (a token user), another user of the tenant, another tenant's admin, the tenant's
 * admin token, its API key and no credential. A denied try must leak nothing and change nothing (read back by
 * the tenant's API key), and leave nothing of the owner's in the caller's own views.
 */
describe('authorization matrix: tokens and API keys (AUTH_USER_ISOLATION=owner)', () => {
  const { svc, world } = useTokenWorld('authz_matrix');
  defineMatrix(svc, world, true);
});
