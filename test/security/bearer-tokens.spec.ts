import { type JWTPayload, SignJWT } from 'jose';
import { Client } from 'pg';

import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { type IssuerKey, newKey, TokenIssuer, unsignedToken } from '../support/token-issuer';

const ACME_KEY = 'acme-key-0123456789abcdef';
const ACME = { tenant_id: 'acme', sub: 'alice', scope: 'read write' };
const GLOBEX = { tenant_id: 'globex', sub: 'bob', scope: 'read write' };

type Res = { status: number; body: any; headers: Headers };

/** HTTP with `Authorization: Bearer <credential>` (a token or an API key), `x-api-key`, or nothing. */
async function call(base: string, auth: { bearer?: string; key?: string }, method: string, path: string, body?: unknown): Promise<Res> {
  const headers: Record<string, string> = {};
  if (auth.bearer) headers.authorization = `Bearer ${auth.bearer}`;
  if (auth.key) headers['x-api-key'] = auth.key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  // JSON, or the text of a LangGraph API error answered as LangGraph Server does (`Thread with ID … not found`)
  const json = (res.headers.get('content-type') ?? '').includes('json');
  return { status: res.status, body: text && json ? JSON.parse(text) : text || null, headers: res.headers };
}

/**
 * Bearer tokens beside API keys: an OIDC issuer on a local port (discovery → its key set), tokens signed with
 * keys this test generates. The key set is refetched for every token (AUTH_JWKS_CACHE_S=0, AUTH_JWKS_COOLDOWN_S=0),
 * so an unreachable endpoint is met on each request, not hidden behind a fresh cache.
 */
describe('bearer tokens (JWT) beside API keys', () => {
  const issuer = new TokenIssuer();
  let first: IssuerKey;
  beforeAll(async () => {
    await issuer.start();
    first = await newKey('k1');
    issuer.published = [first];
  });
  afterAll(() => issuer.stop());

  const svc = useService('tokens', {
    model: { resetEach: true },
    env: () => ({
      ...SCRIPTED_LLM,
      API_KEYS: `acme:${ACME_KEY}`,
      AUTH_ISSUER: issuer.url,
      AUTH_AUDIENCE: issuer.audience,
      AUTH_JWKS_CACHE_S: '0',
      AUTH_JWKS_COOLDOWN_S: '0',
      AUTH_CLOCK_SKEW_S: '5',
    }),
  });
  const as = (bearer: string, method: string, path: string, body?: unknown) => call(svc.url, { bearer }, method, path, body);
  const token = (claims: JWTPayload = ACME, options?: Parameters<TokenIssuer['sign']>[1]) => issuer.sign(claims, options);

  it('accepts a valid token on REST v1 and the LangGraph API, and an API key beside it (x-api-key and Bearer)', async () => {
    const t = await token();
    expect((await as(t, 'GET', '/v1/agents')).status).toBe(200);
    const thread = await as(t, 'POST', '/threads', {});
    expect(thread.status).toBe(200);
    // the token's tenant is the key's tenant: the key sees the thread the token made
    expect((await call(svc.url, { key: ACME_KEY }, 'GET', `/threads/${thread.body.thread_id}`)).status).toBe(200);
    expect((await call(svc.url, { bearer: ACME_KEY }, 'GET', `/threads/${thread.body.thread_id}`)).status).toBe(200);
    const ready = await svc.http('GET', '/health/ready');
    expect(ready.body.checks.jwks.status).toBe('up');
    expect(ready.body.jwks).toMatchObject({ url: issuer.jwksUrl, keys: 1 });
  });

  it.each([
    ['expired', 'TOKEN_EXPIRED', () => token(ACME, { expiresIn: -60 })],
    ['not yet valid', 'TOKEN_NOT_YET_VALID', () => token(ACME, { notBefore: 120 })],
    ['for another audience', 'TOKEN_AUDIENCE', () => token(ACME, { audience: 'another-api' })],
    ['from another issuer', 'TOKEN_ISSUER', () => token(ACME, { issuer: 'https://evil.example' })],
    [
      'unsigned (alg none)',
      'TOKEN_ALGORITHM',
      () => Promise.resolve(unsignedToken({ ...ACME, aud: issuer.audience, iss: issuer.url, exp: 2e9 })),
    ],
    ['signed with HS256', 'TOKEN_ALGORITHM', () => hs256({ ...ACME, aud: issuer.audience, iss: issuer.url })],
    ['signed with a key of no kid in the set', 'TOKEN_KEY_UNKNOWN', async () => token(ACME, { key: await newKey('k-unknown') })],
    ['signed with another key under a known kid', 'TOKEN_SIGNATURE', async () => token(ACME, { key: await newKey('k1') })],
    ['without a tenant claim', 'TOKEN_TENANT', () => token({ sub: 'alice', scope: 'read' })],
    ['with a malformed tenant', 'TOKEN_TENANT', () => token({ tenant_id: 'a:b', sub: 'alice', scope: 'read' })],
    ['without a user claim', 'TOKEN_INVALID', () => token({ tenant_id: 'acme', scope: 'read' })],
  ])('refuses a token %s: 401 %s with WWW-Authenticate invalid_token', async (_what, code, make) => {
    const t = await make();
    for (const [method, path] of [
      ['GET', '/v1/agents'],
      ['POST', '/threads/search'],
    ]) {
      const res = await as(t, method, path, method === 'POST' ? {} : undefined);
      expect({ path, status: res.status, code: res.body?.error?.code }).toEqual({ path, status: 401, code });
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    }
  });

  it('grants by scope: read-only gets 403 on writes, searches stay reads; write can create; no scope reads nothing', async () => {
    const read = await token({ ...ACME, scope: 'read' });
    expect((await as(read, 'GET', '/v1/agents')).status).toBe(200);
    expect((await as(read, 'POST', '/threads/search', {})).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/threads', {}],
      ['POST', '/v1/chat', { message: 'hi' }],
      ['DELETE', '/v1/sessions/some-session'],
      ['PUT', '/store/items', { namespace: ['a'], key: 'k', value: {} }],
    ] as const) {
      const res = await as(read, method, path, body);
      expect({ path, status: res.status, code: res.body?.error?.code }).toEqual({ path, status: 403, code: 'INSUFFICIENT_SCOPE' });
      expect(res.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="write"');
    }
    expect((await as(await token({ ...ACME, scp: ['write'] }), 'POST', '/threads', {})).status).toBe(200);
    expect((await as(await token({ ...ACME, scope: undefined, permissions: ['admin'] }), 'POST', '/threads', {})).status).toBe(200);
    expect((await as(await token({ ...ACME, scope: 'profile email' }), 'GET', '/v1/agents')).status).toBe(403);
    expect(svc.model.callCount).toBe(0);
  });

  it("keeps tenants apart: another tenant's token gets 404 on the first tenant's thread and session", async () => {
    svc.model.enqueue({ content: 'ok' });
    const acme = await token();
    const turn = await as(acme, 'POST', '/v1/chat', { message: 'hello', agent: 'react' });
    expect(turn.status).toBe(200);
    const thread = (await as(acme, 'POST', '/threads', {})).body.thread_id;
    const globex = await token(GLOBEX);
    expect((await as(globex, 'GET', `/threads/${thread}`)).status).toBe(404);
    expect((await as(globex, 'DELETE', `/threads/${thread}`)).status).toBe(404);
    const session = await as(globex, 'GET', `/v1/sessions/${turn.body.session_id}`);
    expect({ status: session.status, code: session.body.error.code }).toEqual({ status: 404, code: 'SESSION_NOT_FOUND' });
    expect((await as(acme, 'GET', `/threads/${thread}`)).status).toBe(200);
    expect((await as(acme, 'GET', `/v1/sessions/${turn.body.session_id}`)).status).toBe(200);
  });

  it("records the token's user as the owner of its runs (null for an API key's), on REST v1 and the LangGraph API", async () => {
    svc.model.setResponder(() => ({ content: 'ok' }));
    const acme = await token();
    const turn = await as(acme, 'POST', '/v1/chat', { message: 'mine', agent: 'react' });
    const job = await as(acme, 'POST', '/v1/jobs', { message: 'queued', session_id: turn.body.session_id });
    const fresh = await as(acme, 'POST', '/v1/jobs', { message: 'a new session' });
    const thread = (await as(acme, 'POST', '/threads', {})).body.thread_id;
    const lg = await as(acme, 'POST', `/threads/${thread}/runs/wait`, {
      assistant_id: 'react',
      input: { messages: [{ role: 'user', content: 'hi' }] },
    });
    expect([turn.status, job.status, fresh.status, lg.status]).toEqual([200, 202, 202, 200]);
    const keyed = await call(svc.url, { key: ACME_KEY }, 'POST', '/v1/chat', { message: 'by key', agent: 'react' });
    const pg = new Client({ connectionString: svc.db.url });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ id: string; owner: string | null }>('SELECT id, owner FROM runs WHERE tenant_id = $1', ['acme']);
      const owner = new Map(rows.map((r) => [r.id, r.owner]));
      expect([turn.body.run_id, job.body.job_id, fresh.body.job_id].map((id) => owner.get(id))).toEqual(['alice', 'alice', 'alice']);
      const lgRuns = (await as(acme, 'GET', `/threads/${thread}/runs`)).body.map((r: { run_id: string }) => owner.get(r.run_id));
      expect(lgRuns).toEqual(['alice']);
      expect(owner.get(keyed.body.run_id)).toBeNull();
    } finally {
      await pg.end();
    }
  });

  it('takes up a rotated key: a token with a new kid is accepted once the key set publishes it', async () => {
    const second = await newKey('k2', 'RS256');
    const t = await token(ACME, { key: second });
    expect((await as(t, 'GET', '/v1/agents')).body.error.code).toBe('TOKEN_KEY_UNKNOWN');
    issuer.published = [first, second];
    const before = issuer.fetches;
    expect((await as(t, 'GET', '/v1/agents')).status).toBe(200);
    expect(issuer.fetches).toBe(before + 1);
    expect((await as(await token(), 'GET', '/v1/agents')).status).toBe(200);
  });

  it('keeps the cached keys while the key set is unreachable; a kid it never saw is 503 naming AUTH_ISSUER', async () => {
    const cachedKid = await token();
    issuer.down = true;
    try {
      expect((await as(cachedKid, 'GET', '/v1/agents')).status).toBe(200);
      const unseen = await as(await token(ACME, { key: await newKey('k3') }), 'GET', '/v1/agents');
      expect({ status: unseen.status, code: unseen.body.error.code }).toEqual({ status: 503, code: 'AUTH_JWKS_UNAVAILABLE' });
      expect(unseen.body.error.message).toContain('AUTH_ISSUER');
      const ready = await svc.http('GET', '/health/ready');
      expect(ready.body.checks.jwks.status).toBe('up'); // cached keys still answer
      expect(ready.body.jwks.last_error).toBeTruthy();
    } finally {
      issuer.down = false;
    }
  });
});

/** An HMAC-signed token: never accepted (no shared secret is configured, HS* cannot be). */
function hs256(claims: JWTPayload): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode('a-shared-secret-of-at-least-32-bytes!!'));
}

/** AUTH_JWKS_URL whose endpoint is down from the start: no key was ever cached. */
describe('bearer tokens with the key set unreachable from the start', () => {
  const issuer = new TokenIssuer();
  beforeAll(async () => {
    await issuer.start();
    issuer.published = [await newKey('k1')];
    issuer.down = true;
  });
  afterAll(() => issuer.stop());
  const svc = useService('tokens_down', {
    env: () => ({ ...SCRIPTED_LLM, AUTH_JWKS_URL: issuer.jwksUrl, AUTH_AUDIENCE: issuer.audience, AUTH_JWKS_COOLDOWN_S: '0' }),
  });

  it('answers 503 naming AUTH_JWKS_URL (never 401 or 500), readiness is 503, and both recover once it answers', async () => {
    const t = await issuer.sign(ACME);
    const res = await call(svc.url, { bearer: t }, 'GET', '/v1/agents');
    expect({ status: res.status, code: res.body.error.code, setting: res.body.error.details?.setting }).toEqual({
      status: 503,
      code: 'AUTH_JWKS_UNAVAILABLE',
      setting: 'AUTH_JWKS_URL',
    });
    const ready = await svc.http('GET', '/health/ready');
    expect({ status: ready.status, jwks: ready.body.checks.jwks.status, keys: ready.body.jwks.keys }).toEqual({
      status: 503,
      jwks: 'down',
      keys: 0,
    });
    issuer.down = false;
    expect((await call(svc.url, { bearer: t }, 'GET', '/v1/agents')).status).toBe(200);
    expect((await svc.http('GET', '/health/ready')).body.checks.jwks.status).toBe('up');
  });
});
