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

/** what userLabel makes: `u` and 40 hex digits */
const USER_LABEL = /^u[0-9a-f]{40}$/;

/**
 * Whether a store namespace (or prefix) reaches into the assistant's memories of a user other than `userId`: it
 * starts with `memories` and its next label is a user label (userLabel) that is not `userId`'s. Other namespaces
 * under `memories` (a graph's own, such as LangMem's `["memories", <user id>]`) are not the assistant's.
 */
export function isOthersMemories(namespace: string[], userId: string | undefined): boolean {
  if (namespace[0] !== MEMORIES_LABEL || namespace.length < 2 || !USER_LABEL.test(namespace[1])) return false;
  return !userId || namespace[1] !== userLabel(userId);
}
