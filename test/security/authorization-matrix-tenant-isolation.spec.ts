import { defineMatrix, useTokenWorld } from './authorization-world';

/**
 * The matrix with AUTH_USER_ISOLATION=tenant: the users of a tenant share its threads, runs, assistants, crons and
 * store; what stays confined is what is not the owner rule's — deleting another user's document or contract,
 * emptying the tenant (`/internal/truncate`) — and everything of another tenant.
 */
describe('authorization matrix: tokens and API keys (AUTH_USER_ISOLATION=tenant)', () => {
  const { svc, world } = useTokenWorld('authz_matrix_shared', { AUTH_USER_ISOLATION: 'tenant' });
  defineMatrix(svc, world, true);
});
