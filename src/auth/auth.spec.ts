import { AppConfig } from '../config/app-config';
import type { DomainException } from '../core/errors';
import { withRunContext } from '../core/run-context';
import { hashKey } from './api-key';
import { ApiKeyAuth } from './api-key-auth.service';
import { authMiddleware } from './auth.middleware';
import { presentedCredentials } from './credentials';
import { isServerIssuedId, isSessionId, runInTenant, tenantOf, threadIdOf } from './tenant';

const KEY = 'acme-key-0123456789abcdef';

describe('API_KEYS', () => {
  it('parses tenant:key pairs', () => {
    const c = new AppConfig({ API_KEYS: ` acme:${KEY} , globex:${KEY}-2 ` });
    expect(c.security.apiKeys).toEqual([
      { tenant: 'acme', key: KEY },
      { tenant: 'globex', key: `${KEY}-2` },
    ]);
  });

  it.each([['nokey'], [':' + KEY], ['bad tenant:' + KEY], ['acme:short'], ['a:b:' + 'x'.repeat(3)]])(
    'refuses %s without echoing the secret',
    (spec) => {
      let message = '';
      try {
        new AppConfig({ API_KEYS: spec });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/API_KEYS entry 1/);
      expect(message).not.toContain(spec.split(':').at(-1)!);
    },
  );
});

describe('ApiKeyAuth', () => {
  const store = { rows: [] as Array<{ id: string; tenant_id: string; key_hash: string }> };
  const db = {
    query: async (sql: string, params: unknown[]) =>
      sql.includes('EXISTS') ? [{ any: store.rows.length > 0 }] : store.rows.filter((r) => r.key_hash === params[0]),
  };
  const auth = (env: Record<string, string>) => new ApiKeyAuth(new AppConfig(env), db as never);

  it('matches configured keys to their tenant and refuses others', async () => {
    const a = auth({ API_KEYS: `acme:${KEY},globex:${KEY}-globex` });
    expect(await a.required()).toBe(true);
    expect(await a.authenticate(KEY)).toEqual({ tenantId: 'acme', keyId: 'env-1' });
    expect(await a.authenticate(`${KEY}-globex`)).toEqual({ tenantId: 'globex', keyId: 'env-2' });
    expect(await a.authenticate(`${KEY}-`)).toBeNull();
    expect(await a.authenticate(undefined)).toBeNull();
    expect(await a.authenticate('x'.repeat(10_000))).toBeNull();
  });

  it('finds hashed keys in the table; without any key nothing is required', async () => {
    const a = auth({});
    expect(await a.required()).toBe(false);
    store.rows.push({ id: 'k1', tenant_id: 'initech', key_hash: hashKey('table-key-0123456789') });
    expect(await auth({}).required()).toBe(true);
    expect(await a.authenticate('table-key-0123456789')).toEqual({ tenantId: 'initech', keyId: 'k1' });
    expect(await a.authenticate('table-key-012345678')).toBeNull();
  });

  it('keeps its last answer on whether keys are required while the database is away, and fails without one', async () => {
    const down = { query: () => Promise.reject(new Error('connect ECONNREFUSED')) };
    const rows = { query: db.query };
    const flaky = { query: (sql: string, params: unknown[]) => rows.query(sql, params) };
    const a = new ApiKeyAuth(new AppConfig({}), flaky as never);
    const answer = await a.required();
    rows.query = down.query as never;
    (Reflect.get(a, 'requiredCache') as { at: number }).at = 0; // the cached answer has expired
    expect(await a.required()).toBe(answer);
    await expect(new ApiKeyAuth(new AppConfig({}), down as never).required()).rejects.toThrow('ECONNREFUSED');
  });

  it('reads the credentials of Authorization (Bearer, or another scheme) and x-api-key, each on its own', () => {
    const none = { bearer: undefined, otherAuthorization: false, apiKey: undefined };
    expect(presentedCredentials({ authorization: `Bearer ${KEY}` })).toEqual({ ...none, bearer: KEY });
    expect(presentedCredentials({ authorization: `bearer  ${KEY} ` })).toEqual({ ...none, bearer: KEY });
    expect(presentedCredentials({ 'x-api-key': ` ${KEY} ` })).toEqual({ ...none, apiKey: KEY });
    expect(presentedCredentials({ authorization: `Basic ${KEY}` })).toEqual({ ...none, otherAuthorization: true });
    expect(presentedCredentials({ authorization: 'Bearer a b' })).toEqual({ ...none, otherAuthorization: true });
    expect(presentedCredentials({ authorization: `Bearer ${KEY}`, 'x-api-key': 'other' })).toEqual({
      ...none,
      bearer: KEY,
      apiKey: 'other',
    });
    expect(presentedCredentials({})).toEqual(none);
  });
});

describe('tenant helpers', () => {
  it('scopes thread ids by tenant and tells client ids from server-issued ones', () => {
    expect(threadIdOf('acme', 'user-session-123')).toBe('acme:user-session-123');
    expect(isSessionId('user-session-123')).toBe(true);
    expect(isSessionId('a'.repeat(128))).toBe(true);
    expect(isSessionId('a'.repeat(129))).toBe(false);
    expect(isSessionId('no spaces')).toBe(false);
    expect(isSessionId('')).toBe(false);
    expect(isServerIssuedId('7b0f4bde-0000-4000-8000-000000000000')).toBe(true);
    expect(isServerIssuedId('user-session-123')).toBe(false);
  });

  it("gives tools the run's tenant from its run context, else the current tenant, else default", () => {
    expect(tenantOf({ configurable: withRunContext({ tenantId: 'acme', runId: 'r' }) })).toBe('acme');
    expect(tenantOf({ configurable: { tenant_id: 'acme' } })).toBe('default'); // a bare key is not a run context
    expect(runInTenant('globex', () => tenantOf({ configurable: {} }))).toBe('globex');
    expect(tenantOf(undefined)).toBe('default');
  });
});

describe('authMiddleware', () => {
  const failing = { required: () => Promise.reject(new Error('ECONNREFUSED')), authenticate: () => Promise.resolve(null) };
  /** what the middleware hands on: nothing (the route runs) or the error the exception filter answers */
  const run = (path: string) =>
    new Promise<{ status?: number; code?: string }>((resolve) => {
      const mw = authMiddleware(failing as never, new AppConfig({}));
      mw({ path, headers: {} } as never, {} as never, (err?: unknown) =>
        resolve(err ? { status: (err as DomainException).status, code: (err as DomainException).code } : {}),
      );
    });

  it('lets /health through without asking the database, and answers 503 elsewhere while keys cannot be checked', async () => {
    expect(await run('/health/live')).toEqual({});
    expect(await run('/health/ready')).toEqual({});
    expect(await run('/v1/agents')).toEqual({ status: 503, code: 'DATABASE_UNAVAILABLE' });
  });
});
