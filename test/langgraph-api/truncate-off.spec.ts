import { useService } from '../support/service-fixture';

/** Without LANGGRAPH_TRUNCATE_ENABLED, `POST /internal/truncate` is not a route: it answers as any unknown path. */
describe('LangGraph API: /internal/truncate, off by default', () => {
  const svc = useService('truncate_off');

  async function seen(method: string, route: string) {
    const res = await fetch(`${svc.url}${route}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: method === 'GET' ? undefined : '{"threads":true}',
    });
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type'), body: text.replaceAll(route, '<route>') };
  }

  it('answers 404 exactly like an unknown route, and empties nothing', async () => {
    const thread = (await (
      await fetch(`${svc.url}/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    ).json()) as { thread_id: string };
    expect(await seen('POST', '/internal/truncate')).toEqual(await seen('POST', '/internal/no-such-route'));
    expect((await seen('POST', '/internal/truncate')).status).toBe(404);
    expect(await seen('GET', '/internal/truncate')).toEqual(await seen('GET', '/internal/no-such-route'));
    expect((await fetch(`${svc.url}/threads/${thread.thread_id}`)).status).toBe(200);
  });
});
