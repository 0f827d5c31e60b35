import path from 'node:path';

import { Logger } from '@nestjs/common';

import { useService } from '../support/service-fixture';

/** custom auth whose `*` handler returns, for each token below, a filter the service cannot apply exactly */
const CONFIG = path.join(__dirname, '..', 'fixtures', 'graphs', 'hostile-auth', 'langgraph.json');
const HOSTILE_TOKENS = ['proto-literal', 'proto-json', 'proto-null', 'ne', 'or', 'nested', 'list', 'date', 'map', 'missing'];

type Res = { status: number; body: any; text: string };

async function call(base: string, token: string, method: string, p: string, body?: unknown): Promise<Res> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* text */
  }
  return { status: res.status, body: parsed, text };
}

/**
 * A langgraph.json auth handler that returns a filter the service cannot apply (`__proto__` as a literal or as
 * JSON.parse makes it, `$ne`, `$or`, a nested object, a list, a Date, a Map, `undefined`): every read, search,
 * count, update and delete is a 500 without details — never the tenant's resources — and nothing changes.
 */
describe('custom auth: a hostile handler filter fails closed', () => {
  const svc = useService('handler_filters', { env: { LANGGRAPH_CONFIG: CONFIG } });
  const as = (token: string) => (method: string, p: string, body?: unknown) => call(svc.url, token, method, p, body);
  const alice = as('alice');
  let thread: string;
  let assistant: string;
  const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  afterAll(() => errors.mockRestore());

  beforeAll(async () => {
    const t = await alice('POST', '/threads', { metadata: { topic: 'alice-secret-topic' } });
    expect(t.status).toBe(200);
    thread = t.body.thread_id;
    const a = await alice('POST', '/assistants', { graph_id: 'echo', name: 'alice-assistant' });
    expect(a.status).toBe(200);
    assistant = a.body.assistant_id;
    const put = await alice('PUT', '/store/items', {
      namespace: ['docs'],
      key: 'k1',
      value: { owner: 'alice', text: 'alice-secret-note' },
    });
    expect(put.status).toBe(204);
  });

  it('the owner filter itself works: another user sees none of it', async () => {
    const bob = as('bob');
    expect((await bob('POST', '/threads/search', {})).body).toEqual([]);
    expect((await bob('GET', `/threads/${thread}`)).status).toBe(404);
    expect((await bob('POST', '/store/items/search', { namespace_prefix: ['docs'] })).body).toEqual({ items: [] });
  });

  it.each(HOSTILE_TOKENS)('"%s": every action is a 500 without details, nothing listed, nothing changed', async (token) => {
    errors.mockClear();
    const mallory = as(token);
    const answers = [
      await mallory('POST', '/threads/search', {}),
      await mallory('POST', '/threads/count', {}),
      await mallory('GET', `/threads/${thread}`),
      await mallory('GET', `/threads/${thread}/state`),
      await mallory('PATCH', `/threads/${thread}`, { metadata: { topic: 'mallory-was-here' } }),
      await mallory('DELETE', `/threads/${thread}`),
      await mallory('POST', '/assistants/search', {}),
      await mallory('GET', `/assistants/${assistant}`),
      await mallory('POST', '/store/items/search', { namespace_prefix: ['docs'] }),
      await mallory('GET', '/store/items?namespace=docs&key=k1'),
      await mallory('DELETE', '/store/items', { namespace: ['docs'], key: 'k1' }),
    ];
    for (const a of answers) {
      expect({ status: a.status, body: a.body }).toEqual({
        status: 500,
        body: { error: { code: 'INTERNAL_ERROR', message: 'internal error' }, detail: 'internal error' },
      });
      for (const leak of [thread, assistant, 'alice', 'secret', 'mallory', '__proto__', '$ne', 'handler'])
        expect(a.text).not.toContain(leak);
    }
    // REST v1 asks the same handler (a session is a `threads` resource): its error body has no `detail`
    const sessions = await mallory('GET', '/v1/sessions');
    expect({ status: sessions.status, body: sessions.body }).toEqual({
      status: 500,
      body: { error: { code: 'INTERNAL_ERROR', message: 'internal error' } },
    });
    answers.push(sessions);

    // the operator learns which handler and why
    const logged = errors.mock.calls.map(([entry]) => entry as { msg?: string; handler?: string; reason?: string });
    expect(logged.filter((e) => e.handler === '*' && /cannot apply/.test(e.msg ?? '')).length).toBe(answers.length);

    // read back as the owner: everything is still there, unchanged
    const mine = await alice('GET', `/threads/${thread}`);
    expect(mine.status).toBe(200);
    expect(mine.body.metadata).toMatchObject({ owner: 'alice', topic: 'alice-secret-topic' });
    expect((await alice('POST', '/threads/count', {})).body).toBe(1);
    expect((await alice('GET', `/assistants/${assistant}`)).status).toBe(200);
    expect((await alice('GET', '/store/items?namespace=docs&key=k1')).body.value).toEqual({ owner: 'alice', text: 'alice-secret-note' });
  });
});
