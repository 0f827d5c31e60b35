/** What a caller may do: `read` (GET, searches), `write` (creates, updates, deletes, runs), `admin` (key management). */
export type Permission = 'read' | 'write' | 'admin';

/** Every permission: what an API key grants (a key is its tenant's whole authority). */
export const ALL_PERMISSIONS: readonly Permission[] = ['read', 'write', 'admin'];

/** Who a request is: its tenant, and (a token's) user or (an API key's) key id, with what it may do. */
export interface RequestPrincipal {
  tenantId: string;
  /** the token's user inside its tenant (`AUTH_USER_CLAIM`); undefined for an API key */
  userId?: string;
  /** the API key's id (never the key); undefined for a token */
  keyId?: string;
  permissions: readonly Permission[];
  /** a custom-auth identity's fields, as its `authenticate` returned them (normalized); undefined otherwise */
  claims?: Record<string, unknown>;
}

/** Each permission implies the ones below it: admin ⊇ write ⊇ read. */
const IMPLIED: Record<Permission, readonly Permission[]> = { read: ['read'], write: ['read', 'write'], admin: ALL_PERMISSIONS };

/** The scope names of a token's claims (`scope`: space-separated; `scp`, `permissions`: arrays or strings). */
export function scopeNamesOf(claims: Record<string, unknown>): string[] {
  const names: string[] = [];
  for (const claim of ['scope', 'scp', 'permissions']) {
    const value = claims[claim];
    if (typeof value === 'string') names.push(...value.split(/\s+/));
    else if (Array.isArray(value)) names.push(...value.filter((v): v is string => typeof v === 'string'));
  }
  return names.filter(Boolean);
}

/** The permissions a token's scopes grant: `<prefix>read`, `<prefix>write`, `<prefix>admin`; other scopes are ignored. */
export function permissionsOf(claims: Record<string, unknown>, prefix: string): Permission[] {
  const granted = new Set<Permission>();
  for (const name of scopeNamesOf(claims)) {
    if (!name.startsWith(prefix)) continue;
    const bare = name.slice(prefix.length);
    if (bare === 'read' || bare === 'write' || bare === 'admin') IMPLIED[bare].forEach((p) => granted.add(p));
  }
  return ALL_PERMISSIONS.filter((p) => granted.has(p));
}
