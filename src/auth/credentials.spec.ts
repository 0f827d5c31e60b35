import type { Request } from 'express';

import type { DomainException } from '../core/errors';
import { type Authenticators, type CustomAuthenticator, resolvePrincipal } from './credentials';

const KEY = 'acme-key-0123456789abcdef';
/** a JWT's shape (header {"alg":"ES256"}): the fake token service accepts exactly this one */
const JWT = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln';

function authenticators(options: { keys?: boolean; tokens?: boolean; custom?: boolean }): Authenticators {
  const keys = {
    required: async () => options.keys ?? false,
    authenticate: async (k?: string) => (options.keys && k === KEY ? { tenantId: 'acme', keyId: 'env-1' } : null),
  };
  const tokens = {
    enabled: () => options.tokens ?? false,
    verify: async (t: string) => {
      if (t !== JWT) throw Object.assign(new Error('bad'), { status: 401, code: 'TOKEN_SIGNATURE' });
      return { tenantId: 'acme', userId: 'u', permissions: ['read'] };
    },
  };
  const custom: CustomAuthenticator = {
    decides: (_method, path) => path !== '/info',
    identify: async (req) => {
      if (req.headers.authorization !== 'Bearer ann') throw Object.assign(new Error('who?'), { status: 401, code: 'UNAUTHENTICATED' });
      return { principal: { tenantId: 'default', userId: 'ann', permissions: ['read', 'write'] }, enter: (fn) => fn() };
    },
    resume: (principal) => ({ principal, enter: (fn) => fn() }),
  };
  return { keys: keys as never, tokens: tokens as never, custom: options.custom ? custom : undefined };
}

/** who the request is: the principal's user or key, or the refusal's code */
async function who(a: Authenticators, headers: Record<string, string>, path = '/threads'): Promise<string> {
  try {
    const { principal } = await resolvePrincipal(a, { method: 'GET', headers } as unknown as Request, path);
    return principal.userId ?? principal.keyId ?? `open:${principal.tenantId}`;
  } catch (err) {
    return (err as DomainException).code;
  }
}

describe('resolvePrincipal: exactly one principal', () => {
  it('without custom auth: one key or one token; two different credentials, a bad one, or another scheme are refused', async () => {
    const a = authenticators({ keys: true, tokens: true });
    const table: Array<[Record<string, string>, string]> = [
      [{}, 'UNAUTHORIZED'],
      [{ 'x-api-key': KEY }, 'env-1'],
      [{ authorization: `Bearer ${KEY}` }, 'env-1'],
      [{ authorization: `Bearer ${KEY}`, 'x-api-key': KEY }, 'env-1'],
      [{ authorization: `Bearer ${JWT}` }, 'u'],
      [{ authorization: `Bearer ${JWT}`, 'x-api-key': 'junk' }, 'CREDENTIALS_AMBIGUOUS'],
      [{ authorization: `Bearer ${JWT}`, 'x-api-key': KEY }, 'CREDENTIALS_AMBIGUOUS'],
      [{ authorization: 'Bearer junk', 'x-api-key': KEY }, 'CREDENTIALS_AMBIGUOUS'],
      [{ 'x-api-key': 'junk' }, 'UNAUTHORIZED'],
      [{ authorization: `Basic ${KEY}` }, 'UNAUTHORIZED'],
      [{ authorization: `Basic x`, 'x-api-key': KEY }, 'UNAUTHORIZED'],
    ];
    const got = [];
    for (const [headers] of table) got.push([headers, await who(a, headers)]);
    expect(got).toEqual(table);
  });

  it('with nothing configured to check credentials: the open tenant, whatever is sent', async () => {
    const a = authenticators({});
    expect([await who(a, {}), await who(a, { 'x-api-key': 'x', authorization: 'Bearer y' })]).toEqual(['open:default', 'open:default']);
  });

  it('with custom auth: a service key in x-api-key must verify and be alone; everything else is authenticate alone', async () => {
    const a = authenticators({ keys: true, tokens: true, custom: true });
    const table: Array<[Record<string, string>, string]> = [
      [{}, 'UNAUTHENTICATED'],
      [{ 'x-api-key': KEY }, 'env-1'],
      [{ 'x-api-key': KEY, authorization: `Bearer ${KEY}` }, 'env-1'],
      [{ 'x-api-key': 'junk' }, 'UNAUTHORIZED'],
      [{ 'x-api-key': 'junk', authorization: 'Bearer ann' }, 'UNAUTHORIZED'],
      [{ 'x-api-key': KEY, authorization: 'Bearer ann' }, 'CREDENTIALS_AMBIGUOUS'],
      [{ 'x-api-key': KEY, authorization: 'Basic x' }, 'CREDENTIALS_AMBIGUOUS'],
      [{ authorization: 'Bearer ann' }, 'ann'],
      // the service's own token is not consulted where the custom auth decides
      [{ authorization: `Bearer ${JWT}` }, 'UNAUTHENTICATED'],
      [{ authorization: `Bearer ${KEY}` }, 'UNAUTHENTICATED'],
    ];
    const got = [];
    for (const [headers] of table) got.push([headers, await who(a, headers)]);
    expect(got).toEqual(table);
    // a path the custom auth leaves to the service: the service's own rules
    expect(await who(a, { authorization: `Bearer ${JWT}` }, '/info')).toBe('u');
  });

  it('with custom auth and no API keys, x-api-key is no credential of the service: authenticate decides', async () => {
    const a = authenticators({ custom: true });
    expect([await who(a, { 'x-api-key': 'anything', authorization: 'Bearer ann' }), await who(a, { 'x-api-key': KEY })]).toEqual([
      'ann',
      'UNAUTHENTICATED',
    ]);
  });
});
