import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { generateKeyPair, SignJWT } from 'jose';

import { AppConfig } from '../config/app-config';
import { JwksUnavailableException } from './auth-errors';
import { discoverJwksUri, JwksKeys } from './jwks-keys';
import { TokenAuth } from './token-auth.service';

/** a port nothing listens on: a server started and closed again */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

const HEADER = { alg: 'ES256', kid: 'k1' };
const TOKEN = { payload: '', signature: '', protected: '' };

describe('JwksKeys without a reachable key set', () => {
  it('answers 503 naming AUTH_JWKS_URL when no key was ever fetched, and reports itself not ready', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/jwks`;
    const keys = new JwksKeys({ jwksUrl: url, jwksCacheMs: 60_000, jwksCooldownMs: 0 });
    const err = await keys.resolve(HEADER, TOKEN).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JwksUnavailableException);
    expect(err).toMatchObject({ status: 503, code: 'AUTH_JWKS_UNAVAILABLE', details: { setting: 'AUTH_JWKS_URL' } });
    expect((err as Error).message).toContain('ECONNREFUSED');
    expect(await keys.ready()).toBe(false);
    expect(keys.state()).toMatchObject({ url, keys: 0, last_error: 'ECONNREFUSED' });
  });

  it('names AUTH_ISSUER when discovery fails', async () => {
    const keys = new JwksKeys({ issuer: `http://127.0.0.1:${await closedPort()}`, jwksCacheMs: 60_000, jwksCooldownMs: 0 });
    await expect(keys.resolve(HEADER, TOKEN)).rejects.toMatchObject({ status: 503, details: { setting: 'AUTH_ISSUER' } });
  });
});

describe('OIDC discovery', () => {
  let server: Server;
  let base = '';
  let doc: Record<string, unknown> = {};
  beforeAll(async () => {
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc)));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it("finds jwks_uri in the issuer's own document, and refuses another issuer's", async () => {
    doc = { issuer: base, jwks_uri: `${base}/keys` };
    expect(await discoverJwksUri(base)).toBe(`${base}/keys`);
    doc = { issuer: 'https://evil.example', jwks_uri: `${base}/keys` };
    await expect(discoverJwksUri(base)).rejects.toThrow('discovery document of issuer "https://evil.example"');
    doc = { issuer: base };
    await expect(discoverJwksUri(base)).rejects.toThrow('has no jwks_uri');
  });
});

describe('a key set endpoint that never answers', () => {
  let server: Server;
  let url = '';
  beforeAll(async () => {
    // accepts the connection, reads the request, never answers
    server = createServer(() => undefined);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('is a 503 AUTH_JWKS_UNAVAILABLE after the fetch timeout, not a 401', async () => {
    const keys = new JwksKeys({ jwksUrl: url, jwksCacheMs: 60_000, jwksCooldownMs: 0 });
    const err = await keys.resolve(HEADER, TOKEN).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JwksUnavailableException);
    expect(err).toMatchObject({ status: 503, code: 'AUTH_JWKS_UNAVAILABLE', details: { setting: 'AUTH_JWKS_URL' } });
    expect(keys.state()).toMatchObject({ last_error: 'timed out' });
  });

  it('answers a signed token with 503 through TokenAuth (what a client gets)', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const token = await new SignJWT({ tenant_id: 'acme', sub: 'u' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setAudience('agents-api')
      .setExpirationTime('5m')
      .sign(privateKey);
    const auth = new TokenAuth(new AppConfig({ AUTH_JWKS_URL: url, AUTH_AUDIENCE: 'agents-api' }));
    await expect(auth.verify(token)).rejects.toMatchObject({ status: 503, code: 'AUTH_JWKS_UNAVAILABLE' });
  });
});
