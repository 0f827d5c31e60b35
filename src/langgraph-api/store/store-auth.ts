import { type AuthFilters, matchesFilters } from '../../auth/auth-filters';
import { CustomAuthException } from '../auth/custom-auth-errors';

/** Items read per page while filtering a search by the custom auth's filter, and at most in all (as the platform). */
export const AUTH_SCAN_PAGE = 1000;
export const AUTH_SCAN_MAX = 10_000;

/** What a store handler's filter is matched against: the item's value fields, its namespace and key (as the platform). */
export function storeItemPasses(
  filters: AuthFilters | undefined,
  namespace: string[],
  key?: string,
  value?: Record<string, unknown> | null,
): boolean {
  return matchesFilters({ ...(value ?? {}), namespace, ...(key === undefined ? {} : { key }) }, filters);
}

/** an existing item the filter hides: answered as a missing one */
export function itemNotFound(): CustomAuthException {
  return new CustomAuthException(404, 'Item not found');
}

/** a write the filter does not allow */
export function notAuthorized(): CustomAuthException {
  return new CustomAuthException(403, 'Not authorized');
}

/** a filtered search that would read more than AUTH_SCAN_MAX items */
export function scanLimitExceeded(): CustomAuthException {
  return new CustomAuthException(400, 'Authenticated store query exceeded maximum scan limit. Narrow the namespace or filters.');
}

/**
 * `offset + limit` items that pass the filter, read a page at a time from `page(limit, offset)`; a search past
 * AUTH_SCAN_MAX items without enough is refused (400), as the platform refuses it.
 */
export async function scanAuthorized<T>(
  page: (limit: number, offset: number) => Promise<T[]>,
  passes: (item: T) => boolean,
  want: { limit: number; offset: number },
): Promise<T[]> {
  const needed = want.offset + want.limit;
  const found: T[] = [];
  let scanned = 0;
  while (found.length < needed && scanned < AUTH_SCAN_MAX) {
    const size = Math.min(AUTH_SCAN_PAGE, AUTH_SCAN_MAX - scanned);
    const candidates = await page(size, scanned);
    scanned += candidates.length;
    found.push(...candidates.filter(passes));
    if (candidates.length < size) return found.slice(want.offset, needed);
  }
  if (found.length < needed && scanned >= AUTH_SCAN_MAX) throw scanLimitExceeded();
  return found.slice(want.offset, needed);
}
