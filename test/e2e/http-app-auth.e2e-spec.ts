import path from 'node:path';

import { useService } from '../support/service-fixture';

const CONFIG = path.join(__dirname, '..', 'conformance', 'graphs', 'http', 'langgraph.json');
const ACME = 'acme-key-0123456789abcdef';
const BETA = 'beta-key-0123456789abcdef';

/**
 * langgraph.json's http.app behind API keys: its routes need a key like the API's, its middleware runs after
 * authentication (it cannot open a built-in route), `new Client()` in a route acts with the caller's key,
 * and only the UI bundle's files are public.
 */
describe('http.app and ui with API keys', () => {
  const svc = useService('http_app_auth', { env: { LANGGRAPH_CONFIG: CONFIG, API_KEYS: `acme:${ACME},beta:${BETA}` } });
  const call = (route: string, init: RequestInit = {}, key?: string) =>
    fetch(`${svc.url}${route}`, { ...init, headers: { ...(key ? { 'x-api-key': key } : {}), ...(init.headers as object) } });

  it('custom routes and the middleware are behind the key', async () => {
    expect((await call('/hello/ada')).status).toBe(401);
    expect((await call('/assistants/search?blocked', { method: 'POST' })).status).toBe(401);
    const ok = await call('/hello/ada', {}, ACME);
    expect([ok.status, ok.headers.get('x-conformance')]).toEqual([200, 'seen GET 200']);
  });

  it("new Client() in a custom route calls the API as the caller's tenant", async () => {
    const made = await call('/threads-via-client', { method: 'POST' }, ACME);
    expect(await made.json()).toMatchObject({ metadata: { via: 'client' }, same: true });
    const search = (key: string) =>
      call('/threads/search', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }, key);
    const mine = (await (await search(ACME)).json()) as Array<{ metadata: Record<string, unknown> }>;
    const theirs = (await (await search(BETA)).json()) as unknown[];
    expect(mine.map((t) => t.metadata.via)).toContain('client');
    expect(theirs).toEqual([]);
  });

  it("the UI bundle's files are public (loadable cross-origin); the component's HTML needs the key", async () => {
    expect(
      (await call('/ui/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"card"}' })).status,
    ).toBe(401);
    const html = await call('/ui/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"card"}' }, ACME);
    expect(await html.text()).toContain(`<script src="${svc.url}/ui/chat/entrypoint.js"`);
    const js = await call('/ui/chat/entrypoint.js');
    expect([js.status, js.headers.get('content-type'), js.headers.get('cross-origin-resource-policy')]).toEqual([
      200,
      'text/javascript; charset=utf-8',
      'cross-origin',
    ]);
    expect((await call('/ui/chat/missing.js')).status).toBe(404);
  });
});
