import { Client } from 'pg';

import { ApiKeyRepository } from '../../src/auth/api-key.repository';
import { useService } from '../support/service-fixture';
import { waitFor } from '../support/test-app';

/** How long "are keys configured at all?" is cached (ApiKeyAuth); a removed key must be refused within it. */
const AUTH_CACHE_MS = 2000;

/**
 * Keys kept only in the `api_keys` table (no API_KEYS): a key deleted from the table or revoked (`npm run
 * api-keys -- revoke`) is refused within the auth cache's 2 s and stays refused — also when it was the last
 * key, which must not open the service to everyone as tenant `default`.
 */
describe('a key removed from api_keys', () => {
  const svc = useService('keyrevoke');
  /** one connection per statement: none is left open when the fixture drops the database */
  const sql = async (text: string, params: unknown[] = []) => {
    const pg = new Client({ connectionString: svc.db.url });
    await pg.connect();
    try {
      return (await pg.query(text, params)).rows;
    } finally {
      await pg.end();
    }
  };
  const store = new ApiKeyRepository(sql);

  const agents = (key: string | null) => fetch(`${svc.url}/v1/agents`, { headers: key ? { 'x-api-key': key } : {} }).then((r) => r.status);

  /** Polls until the key is refused; then it must stay refused for longer than the cache lives. */
  async function refusedWithin(key: string): Promise<number> {
    const removedAt = Date.now();
    await waitFor(async () => ((await agents(key)) === 401 ? true : undefined), 5000, 20);
    const took = Date.now() - removedAt;
    for (const until = Date.now() + AUTH_CACHE_MS + 500; Date.now() < until;) {
      expect(await agents(key)).toBe(401);
      await new Promise((r) => setTimeout(r, 100));
    }
    return took;
  }

  it('is refused within 2 s when deleted or revoked, and revoking the last key does not open the service', async () => {
    const a = await store.create('initech', 'deleted');
    const b = await store.create('umbrella', 'revoked');
    // created while the service runs: they count once the cache has expired
    await waitFor(async () => ((await agents(a.key)) === 200 && (await agents(null)) === 401 ? true : undefined), 5000, 50);
    expect(await agents(b.key)).toBe(200);

    await sql(`DELETE FROM api_keys WHERE id = $1`, [a.id]);
    expect(await refusedWithin(a.key)).toBeLessThanOrEqual(AUTH_CACHE_MS + 500);
    expect(await agents(b.key)).toBe(200);

    expect(await store.revoke('umbrella', b.id)).toBe(true); // what `npm run api-keys -- revoke` does
    expect(await refusedWithin(b.key)).toBeLessThanOrEqual(AUTH_CACHE_MS + 500);
    expect(await agents(null)).toBe(401); // no key left active: still closed, not open to tenant `default`
  });
});
