import { readSlice } from '../config/settings';
import { tokenSettings } from './token.settings';

describe('token settings', () => {
  it('defaults: tokens off, asymmetric algorithms, tenant_id and sub, users isolated by owner', () => {
    expect(readSlice(tokenSettings, {}).tokens).toEqual({
      jwksUrl: undefined,
      issuer: undefined,
      audiences: [],
      algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      clockSkewS: 30,
      tenantClaim: 'tenant_id',
      userClaim: 'sub',
      scopePrefix: '',
      jwksCacheMs: 600_000,
      jwksCooldownMs: 30_000,
      userIsolation: 'owner',
    });
  });

  it('needs an audience once tokens are on', () => {
    expect(() => readSlice(tokenSettings, { AUTH_ISSUER: 'https://id.example.com' })).toThrow(/AUTH_AUDIENCE is required/);
    const on = readSlice(tokenSettings, {
      AUTH_JWKS_URL: 'https://id.example.com/jwks',
      AUTH_AUDIENCE: 'a, b',
      AUTH_TENANT_CLAIM: 'org_id',
    });
    expect(on.tokens).toMatchObject({ jwksUrl: 'https://id.example.com/jwks', audiences: ['a', 'b'], tenantClaim: 'org_id' });
  });

  it.each([['none'], ['HS256'], ['RS256,HS512'], ['rs256']])('refuses AUTH_ALGORITHMS=%s at start', (spec) => {
    expect(() => readSlice(tokenSettings, { AUTH_ALGORITHMS: spec })).toThrow(/Invalid configuration: AUTH_ALGORITHMS/);
  });

  it('names the setting of a malformed URL or claim', () => {
    expect(() => readSlice(tokenSettings, { AUTH_JWKS_URL: 'ftp://x/jwks', AUTH_AUDIENCE: 'a' })).toThrow(/AUTH_JWKS_URL/);
    expect(() => readSlice(tokenSettings, { AUTH_USER_CLAIM: 'has space' })).toThrow(/AUTH_USER_CLAIM/);
    expect(() => readSlice(tokenSettings, { AUTH_CLOCK_SKEW_S: '-1' })).toThrow(/AUTH_CLOCK_SKEW_S/);
    expect(() => readSlice(tokenSettings, { AUTH_USER_ISOLATION: 'team' })).toThrow(/AUTH_USER_ISOLATION/);
  });
});
