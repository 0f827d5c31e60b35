import { createHash } from 'node:crypto';

/** The first label of every user's memories in the (tenant's) LangGraph store. */
export const MEMORIES_LABEL = 'memories';

/**
 * The label of a user's namespace: a fixed-length hash of the user id. The store matches namespaces by prefix
 * (`alice` would also match `alice2`) and refuses `.`, `:`, `_` and `%` in labels (which user ids such as e-mail
 * addresses have); a fixed-length hash has neither problem, as the tenant's own label (database/store/tenant-store.ts).
 */
export function userLabel(userId: string): string {
  return `u${createHash('sha256').update(userId).digest('hex').slice(0, 40)}`;
}

/** A user's namespace inside the tenant: `["memories", userLabel(user)]`. */
export function memoryNamespace(userId: string): string[] {
  return [MEMORIES_LABEL, userLabel(userId)];
}

/**
 * Whether a store namespace (or prefix) reaches into another user's memories: it starts with `memories` and names
 * a user label that is not `userId`'s. A prefix of just `["memories"]` names no user (the owner rule confines it).
 */
export function isOthersMemories(namespace: string[], userId: string | undefined): boolean {
  if (namespace[0] !== MEMORIES_LABEL || namespace.length < 2) return false;
  return !userId || namespace[1] !== userLabel(userId);
}
