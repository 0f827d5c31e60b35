import path from 'node:path';

import { type JWTPayload } from 'jose';

import { rawRequest } from '../support/raw-http';
import { useService } from '../support/service-fixture';
import { newKey, TokenIssuer } from '../support/token-issuer';

/**
 * Paths normalised once, and exactly one principal per request (docs/security/paths-and-credentials.md), against
 * the service as it ships: langgraph.json's custom auth, its `http` app, API keys and JWKS bearer tokens all
 * configured at once (and, for comparison, without the custom auth). Requests go out as raw HTTP: fetch and
 * http.request would normalise the very paths under test.
 */
const FIXTURES = path.join(__dirname, '..', 'fixtures', 'graphs', 'boundary');
const KEY = 'default-key-0123456789abcdef';
const MALLORY: JWTPayload = { tenant_id: 'default', sub: 'mallory', scope: 'read write' };
const SECRET = 'custom-route-reached';
const hits = (): string[] => ((globalThis as Record<string, unknown>).__boundaryCustomHits as string[] | undefined) ?? [];

/** the open prefixes of open-paths.ts, /info (not guarded by the custom auth) and the UI bundles' files */
const OPEN_PREFIXES = ['/health', '/health/live', '/ok', '/console', '/docs', '/metrics', '/info', '/ui', '/ui/chat'];

/** forms that climb from an open prefix to the custom route `/custom/secret`: each refused at the edge (400 INVALID_PATH) */
const ESCAPES: Array<(prefix: string) => string> = [
  (p) => `${p}/../custom/secret`,
  (p) => `${p}/./../custom/secret`,
  (p) => `${p}/x/../../custom/secret`,
  (p) => `${p}/..`,
  (p) => `${p}/%2e%2e/custom/secret`,
  (p) => `${p}/%2E%2E/custom/secret`,
  (p) => `${p}/.%2e/custom/secret`,
  (p) => `${p}/%2e./custom/secret`,
  (p) => `${p}/%252e%252e/custom/secret`,
  (p) => `${p}/%25252e%25252e/custom/secret`,
  (p) => `${p}/..%2fcustom%2fsecret`,
  (p) => `${p}%2f..%2fcustom%2fsecret`,
  (p) => `${p}/%2e%2e%2fcustom/secret`,
  (p) => `${p}/..%5ccustom/secret`,
  (p) => `${p}/%5c..%5ccustom/secret`,
  (p) => `${p}\\..\\custom\\secret`,
  (p) => `${p}/..\\custom/secret`,
  (p) => `${p}//../custom/secret`,
  (p) => `${p}/..%00/custom/secret`,
  (p) => `${p}/..%09/custom/secret`,
  (p) => `${p}/%2e%2e;/custom/secret`,
  (p) => `${p}/%C0%AE%C0%AE/custom/secret`,
  (p) => `${p}/%c0%2e%c0%2e/custom/secret`,
];

/** forms that are no escape at all (the same path for every layer): never the custom route, never a 400 */
const HARMLESS: Array<(prefix: string) => string> = [
  (p) => `${p}/..;/custom/secret`,
  (p) => `${p}/%EC%95%88/custom/secret`,
  (p) => `${p}/custom/secret`,
  (p) => `${p}/...`,
];

const TOKEN_ANN = { authorization: 'Bearer token-ann' };

/** the checks every service below gets: the path tables, hosts, forwarded headers */
function pathChecks(svc: { url: string }, credential: Record<string, string>) {
  it.each(OPEN_PREFIXES)(
    'no escape from %s reaches the custom route, with or without a credential: 400 INVALID_PATH at the edge',
    async (prefix) => {
      const before = hits().length;
      for (const escape of ESCAPES) {
        const target = escape(prefix);
        for (const headers of [{}, credential]) {
          const res = await rawRequest(svc.url, 'GET', target, headers);
          expect([target, res.status, JSON.parse(res.body).error?.code ?? JSON.parse(res.body).detail]).toEqual([
            target,
            400,
            'INVALID_PATH',
          ]);
        }
      }
      expect(hits().length).toBe(before);
    },
  );

  it.each(OPEN_PREFIXES)('what is no escape from %s is read as the same path by every layer: never the custom route', async (prefix) => {
    const before = hits().length;
    for (const form of HARMLESS) {
      const target = form(prefix);
      for (const headers of [{}, credential]) {
        const res = await rawRequest(svc.url, 'GET', target, headers);
        // auth (401), Nest (404) or the app (404) decide it — the same path for each, so never the app's route
        expect([target, res.status === 200 || res.status === 400, res.body.includes(SECRET)]).toEqual([target, false, false]);
      }
    }
    expect(hits().length).toBe(before);
  });

  it('canonicalises an encoded unreserved character once: auth, Nest and the http app read the decoded path', async () => {
    expect((await rawRequest(svc.url, 'GET', '/%68ealth/live')).status).toBe(200);
    const before = hits().length;
    expect((await rawRequest(svc.url, 'GET', '/custom/%73ecret')).status).toBe(401);
    expect(hits().length).toBe(before);
    const reached = await rawRequest(svc.url, 'GET', '/custom/%73ecret', credential);
    expect([reached.status, JSON.parse(reached.body).path]).toEqual([200, '/custom/secret']);
    expect(hits().slice(before)).toEqual(['/custom/secret']);
  });

  it.each([['a b'], ['evil@127.0.0.1'], ['127.0.0.1/x'], ['[::1'], ['h:99999999'], ['h\\x'], [''], ['h?x'], ['h#x']])(
    'a malformed Host %j is 400 INVALID_HOST (never a 500), before any credential is read',
    async (host) => {
      const variants: Array<Record<string, string>> = [{ host }, { host, ...credential }, { host, 'x-api-key': KEY }];
      for (const headers of variants) {
        const res = await rawRequest(svc.url, 'GET', '/custom/seen', headers);
        expect([res.status, res.body.includes('INVALID_HOST') || res.body.includes('BAD_REQUEST'), /\n\s+at /.test(res.body)]).toEqual([
          400,
          true,
          false,
        ]);
      }
    },
  );

  it('forwarded headers from an untrusted peer (TRUSTED_PROXIES unset) never reach a layer', async () => {
    const res = await rawRequest(svc.url, 'GET', '/custom/seen', {
      ...credential,
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'https',
    });
    const seen = JSON.parse(res.body) as { url: string; forwarded_host: string | null };
    expect([res.status, seen.forwarded_host, seen.url.startsWith('http://127.0.0.1:')]).toEqual([200, null, true]);
  });
}

describe('with custom auth, its http app, API keys and JWKS tokens all configured', () => {
  const issuer = new TokenIssuer();
  beforeAll(async () => {
    await issuer.start();
    issuer.published = [await newKey('k1')];
  });
  afterAll(() => issuer.stop());
  const svc = useService('paths_principals_custom', {
    env: () => ({
      LANGGRAPH_CONFIG: path.join(FIXTURES, 'langgraph.json'),
      API_KEYS: `default:${KEY}`,
      AUTH_ISSUER: issuer.url,
      AUTH_AUDIENCE: issuer.audience,
    }),
  });
  /** JSON over fetch (ordinary paths) as one caller */
  const as = async (headers: Record<string, string>, method: string, p: string, body?: unknown) => {
    const res = await fetch(`${svc.url}${p}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: any = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* text */
    }
    return { status: res.status, body: parsed };
  };
  pathChecks(svc, TOKEN_ANN);

  /** (name, headers) → the status, and for a 2xx whose thread the answer shows */
  it('resolves exactly one principal for each combination of credentials', async () => {
    const annThread = (await as(TOKEN_ANN, 'POST', '/threads', { metadata: { mark: 'ann' } })).body.thread_id as string;
    expect(annThread).toEqual(expect.any(String));
    const serviceToken = await issuer.sign(MALLORY);
    const forged = `${serviceToken.slice(0, -4)}AAAA`;
    const table: Array<[string, Record<string, string>, number, string?]> = [
      ['no credential', {}, 401],
      ['valid key (x-api-key)', { 'x-api-key': KEY }, 200],
      ['valid key as Bearer (the custom auth owns Authorization)', { authorization: `Bearer ${KEY}` }, 401],
      ['junk key', { 'x-api-key': 'junk-key-0123456789abcdef' }, 401, 'UNAUTHORIZED'],
      ['valid service token (the custom auth decides, not the token)', { authorization: `Bearer ${serviceToken}` }, 401],
      ['junk token', { authorization: `Bearer ${forged}` }, 401],
      ['key + token', { 'x-api-key': KEY, authorization: `Bearer ${serviceToken}` }, 401, 'CREDENTIALS_AMBIGUOUS'],
      ['custom identity (owner)', TOKEN_ANN, 200],
      ['custom identity (another user)', { authorization: 'Bearer token-ben' }, 404],
      ['custom identity + junk key', { ...TOKEN_ANN, 'x-api-key': 'junk' }, 401, 'UNAUTHORIZED'],
      ['custom identity + valid key', { ...TOKEN_ANN, 'x-api-key': KEY }, 401, 'CREDENTIALS_AMBIGUOUS'],
      ['service token + junk key (issue #32)', { authorization: `Bearer ${serviceToken}`, 'x-api-key': 'x' }, 401, 'UNAUTHORIZED'],
      ['Basic credentials', { authorization: 'Basic YW5uOnB3' }, 401],
    ];
    const got = [];
    for (const [name, headers, , code] of table) {
      const res = await as(headers, 'GET', `/threads/${annThread}`);
      got.push([name, res.status, code ? (res.body?.error?.code ?? res.body?.detail ?? res.body) : undefined]);
      expect(res.status === 200 ? res.body.metadata.owner : 'none').toBe(res.status === 200 ? 'ann' : 'none');
    }
    expect(got).toEqual(table.map(([name, , status, code]) => [name, status, code]));
  });

  it("the issue's attack (a service token plus any x-api-key) reads, lists and deletes nothing of another user", async () => {
    const annThread = (await as(TOKEN_ANN, 'POST', '/threads', { metadata: { mark: 'ann-attack' } })).body.thread_id as string;
    const attacker = { authorization: `Bearer ${await issuer.sign(MALLORY)}`, 'x-api-key': 'anything' };
    expect([
      (await as(attacker, 'GET', `/threads/${annThread}`)).status,
      (await as(attacker, 'POST', '/threads/search', { limit: 100 })).status,
      (await as(attacker, 'DELETE', `/threads/${annThread}`)).status,
      (await as(attacker, 'PATCH', `/threads/${annThread}`, { metadata: { mark: 'mallory' } })).status,
      (await as(attacker, 'GET', '/custom/secret')).status,
    ]).toEqual([401, 401, 401, 401, 401]);
    // read back as the owner: still there, unchanged
    const after = await as(TOKEN_ANN, 'GET', `/threads/${annThread}`);
    expect([after.status, after.body.metadata]).toEqual([200, { mark: 'ann-attack', owner: 'ann' }]);
  });

  it("authenticate's own errors are logged, not returned: a bare 401 without the message; an HTTPException keeps its status and headers", async () => {
    const res = await as({ ...TOKEN_ANN, 'x-explode': '1' }, 'GET', '/threads/search');
    expect([res.status, JSON.stringify(res.body).includes('hunter2')]).toEqual([401, false]);
    const refused = await fetch(`${svc.url}/threads/search`, { method: 'POST' });
    expect([refused.status, refused.headers.get('www-authenticate'), await refused.text()]).toEqual([
      401,
      'Bearer realm="boundary"',
      'who are you?',
    ]);
  });
});

describe('with API keys, JWKS tokens and the http app, no custom auth', () => {
  const issuer = new TokenIssuer();
  beforeAll(async () => {
    await issuer.start();
    issuer.published = [await newKey('k1')];
  });
  afterAll(() => issuer.stop());
  const svc = useService('paths_principals_service', {
    env: () => ({
      LANGGRAPH_CONFIG: path.join(FIXTURES, 'langgraph.http-only.json'),
      API_KEYS: `default:${KEY}`,
      AUTH_ISSUER: issuer.url,
      AUTH_AUDIENCE: issuer.audience,
    }),
  });

  pathChecks(svc, { 'x-api-key': KEY });

  it('resolves exactly one principal for each combination of credentials', async () => {
    const token = await issuer.sign(MALLORY);
    const forged = `${token.slice(0, -4)}AAAA`;
    const table: Array<[string, Record<string, string>, number, string?]> = [
      ['no credential', {}, 401],
      ['valid key (x-api-key)', { 'x-api-key': KEY }, 200],
      ['valid key as Bearer', { authorization: `Bearer ${KEY}` }, 200],
      ['the same key in both headers', { authorization: `Bearer ${KEY}`, 'x-api-key': KEY }, 200],
      ['junk key', { 'x-api-key': 'junk-key-0123456789abcdef' }, 401, 'UNAUTHORIZED'],
      ['valid token', { authorization: `Bearer ${token}` }, 200],
      ['junk token', { authorization: `Bearer ${forged}` }, 401, 'TOKEN_SIGNATURE'],
      ['key + token', { 'x-api-key': KEY, authorization: `Bearer ${token}` }, 401, 'CREDENTIALS_AMBIGUOUS'],
      ['token + junk key', { authorization: `Bearer ${token}`, 'x-api-key': 'junk' }, 401, 'CREDENTIALS_AMBIGUOUS'],
      ['key + junk bearer', { 'x-api-key': KEY, authorization: 'Bearer junk' }, 401, 'CREDENTIALS_AMBIGUOUS'],
      ['custom-auth style credential', TOKEN_ANN, 401, 'UNAUTHORIZED'],
      ['Basic credentials', { authorization: 'Basic YW5uOnB3' }, 401, 'UNAUTHORIZED'],
      ['Basic + valid key', { authorization: 'Basic YW5uOnB3', 'x-api-key': KEY }, 401, 'UNAUTHORIZED'],
    ];
    const got = [];
    for (const [name, headers] of table) {
      const res = await fetch(`${svc.url}/threads/search`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: '{}',
      });
      const body = (await res.json()) as { error?: { code?: string } };
      got.push([name, res.status, res.status === 200 ? undefined : body.error?.code]);
    }
    expect(got).toEqual(table.map(([name, , status, code]) => [name, status, status === 200 ? undefined : (code ?? expect.any(String))]));
  });

  it('a thread of the key is not deleted by a token carrying a junk key, nor by a key with a junk bearer', async () => {
    const key = { 'x-api-key': KEY };
    const made = await fetch(`${svc.url}/threads`, { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: '{}' });
    const thread = ((await made.json()) as { thread_id: string }).thread_id;
    const token = await issuer.sign(MALLORY);
    for (const headers of [
      { authorization: `Bearer ${token}`, 'x-api-key': 'junk' },
      { ...key, authorization: 'Bearer junk' },
    ]) {
      expect((await fetch(`${svc.url}/threads/${thread}`, { method: 'DELETE', headers })).status).toBe(401);
    }
    expect((await fetch(`${svc.url}/threads/${thread}`, { headers: key })).status).toBe(200);
  });
});
