import path from 'node:path';

import { normalize, type Side, usePair } from './support/pair';

const config = path.join(__dirname, 'graphs', 'http', 'langgraph.json');

/** a raw GET as a browser or `fetch` sends it: status, the app's headers, the body as text */
async function get(side: Side, route: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${side.url}${route}`, { headers });
  return { status: res.status, out: res.headers.get('x-out'), mark: res.headers.get('x-conformance'), body: await res.text() };
}

async function until<T>(probe: () => Promise<T | null>, timeoutMs = 5_000): Promise<T | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** langgraph.json's `http` (a Hono app in front of the API) and `ui` (generative-UI bundles), seen by a client on both servers. */
describe('conformance: http.app and ui', () => {
  const pair = usePair('http', { config });

  it('custom routes answer, with their headers, and the app middleware marks them', async () => {
    const seen = await pair.both((side) => get(side, '/hello/ada', { 'x-in': 'hi' }));
    expect(seen.ours).toEqual(seen.reference);
    expect(seen.ours).toMatchObject({ status: 200, out: 'yes', mark: 'seen GET 200' });
  });

  it("an HTTPException is its status and message; a path neither knows is the API's 404, not the app's notFound", async () => {
    const seen = await pair.both(async (side) => ({ teapot: await get(side, '/teapot'), none: (await get(side, '/no/such/path')).status }));
    expect(seen.ours).toEqual(seen.reference);
    expect(seen.ours).toMatchObject({ teapot: { status: 418, body: 'short and stout' }, none: 404 });
  });

  it("the middleware sees the API's own routes: it marks their responses and may answer in their place", async () => {
    const seen = await pair.both(async (side) => {
      const search = await side.request('POST', '/assistants/search', { graph_id: 'chat' });
      const blocked = await side.request('POST', '/assistants/search?blocked', { graph_id: 'chat' });
      return { search: [search.status, search.headers.get('x-conformance')], blocked: [blocked.status, blocked.body] };
    });
    expect(seen.ours).toEqual(seen.reference);
    expect(seen.ours.search).toEqual([200, 'seen POST 200']);
  });

  it("the middleware may replace a built-in route's request body (a thread's metadata from a header)", async () => {
    const seen = await pair.both(async (side) => {
      const created = await side.request('POST', '/threads', { metadata: { from: 'body' } }, { 'x-note': 'from header' });
      return { status: created.status, metadata: created.body?.metadata };
    });
    expect(seen.ours).toEqual(seen.reference);
    expect(seen.ours.metadata).toEqual({ from: 'body', note: 'from header' });
  });

  it('a streaming route streams', async () => {
    const seen = await pair.both(async (side) => {
      const res = await fetch(`${side.url}/count`);
      return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
    });
    expect(seen.ours).toEqual(seen.reference);
    expect(seen.ours.text).toBe('tick 0\ntick 1\ntick 2\n');
  });

  it('a custom route calls the API in process with new Client() (no URL)', async () => {
    const seen = await pair.both(async (side) => (await side.request('POST', '/threads-via-client', {})).body);
    expect(seen.ours).toEqual(seen.reference);
    expect(seen.ours).toMatchObject({ metadata: { via: 'client' }, same: true });
  });

  it("a run's relative webhook is delivered to the app", async () => {
    const seen = await pair.both(async (side) => {
      const thread = await side.client.threads.create();
      await side.client.runs.wait(thread.thread_id, 'chat', {
        input: { messages: [{ role: 'human', content: 'hook' }] },
        webhook: '/hooks/run',
      });
      const payload = await until(async () => (await side.request('GET', '/hooks/last')).body as Record<string, unknown> | null);
      // (the payload's `values` differ: the reference posts messages in LangChain's serialized form, not the API's)
      return normalize({ status: payload?.status, thread: payload?.thread_id === thread.thread_id, run: typeof payload?.run_id });
    });
    expect(seen.ours).toEqual(seen.reference);
    expect(seen.ours).toEqual({ status: 'success', thread: true, run: 'string' });
  });

  it("POST /ui/{graph} is the component's HTML under the client's URL, the bundle is served, an unknown graph is 404", async () => {
    const seen = await pair.both(async (side) => {
      const html = await side.request('POST', '/ui/chat', { name: 'card' });
      const src = /src="([^"]+)"/.exec(String(html.body))?.[1] ?? '';
      const js = await fetch(src);
      const missing = await side.request('POST', '/ui/nope', { name: 'card' });
      return {
        // (the content type is not compared: the reference means text/html but sends text/plain; ours is text/html)
        html: [html.status, String(html.body).split(side.url).join('<origin>')],
        js: [js.status, (await js.text()).includes('Symbol.for("LGUI_REQUIRE")')],
        missing: missing.status,
      };
    });
    expect(seen.ours).toEqual(seen.reference);
    expect(seen.ours.html[1]).toContain('<script src="<origin>/ui/chat/entrypoint.js"');
  });
});
