import { looksLikeJwt } from './token-auth.service';

const part = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('looksLikeJwt', () => {
  it('takes three base64url parts with a JSON header naming alg as a token, anything else as an API key', () => {
    expect(looksLikeJwt(`${part({ alg: 'ES256', kid: 'k' })}.${part({ sub: 'a' })}.c2ln`)).toBe(true);
    expect(looksLikeJwt(`${part({ alg: 'none' })}.${part({ sub: 'a' })}.`)).toBe(true);
    expect(looksLikeJwt('ak_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG')).toBe(false);
    expect(looksLikeJwt('acme-key-0123456789abcdef')).toBe(false);
    expect(looksLikeJwt(`${part({ typ: 'JWT' })}.${part({ sub: 'a' })}.c2ln`)).toBe(false);
    expect(looksLikeJwt('a.b.c')).toBe(false);
    expect(looksLikeJwt(`${part({ alg: 'RSA-OAEP', enc: 'A256GCM' })}.a.b.c.d`)).toBe(false);
  });
});
