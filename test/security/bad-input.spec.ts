import { useService } from '../support/service-fixture';

/**
 * Every bad input a 4xx, never a 500 or a hang (issue #23): each request below answered 500, hung, or ended in a
 * run failed with INTERNAL_ERROR. Now each is refused at once with a named code (and the setting, for a limit);
 * a control beside each shows the valid neighbour still works. No model: the react agent answers `2+2` by rule.
 */
const INPUT = { messages: [{ role: 'user', content: '2+2' }] };
const NO_STACK = /\.ts:\d+|\.js:\d+|\bat \w+ \(/;

describe('bad input answers 4xx', () => {
  const svc = useService('bad_input_sec', { env: { DEFAULT_AGENT: 'react' } });

  const newThread = async (): Promise<string> => (await svc.http('POST', '/threads', {})).body.thread_id;

  /** the status, code and (optionally) message of an error answer, without a stack */
  const refused = (res: { status: number; body: any }, status: number, code: string, message?: RegExp) => {
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
    if (message) expect(res.body.error.message).toMatch(message);
    expect(JSON.stringify(res.body)).not.toMatch(NO_STACK);
  };

  describe('store', () => {
    beforeAll(async () => {
      expect((await svc.http('PUT', '/store/items', { namespace: ['n'], key: 'num', value: { a: 5 } })).status).toBe(204);
      expect((await svc.http('PUT', '/store/items', { namespace: ['mixed'], key: 'num', value: { a: 5 } })).status).toBe(204);
      expect((await svc.http('PUT', '/store/items', { namespace: ['mixed'], key: 'txt', value: { a: 'five' } })).status).toBe(204);
    });

    const search = (namespace: string, filter: unknown) =>
      svc.http('POST', '/store/items/search', { namespace_prefix: [namespace], filter });

    it('a numeric comparison with a string operand is 422, not 500', async () => {
      refused(await search('n', { a: { $gt: 'abc' } }), 422, 'VALIDATION_FAILED', /filter\.a\.\$gt: compares numbers/);
      refused(await search('n', { a: { $lte: true } }), 422, 'VALIDATION_FAILED', /\$lte/);
      refused(await search('n', { a: { $like: 'x' } }), 422, 'VALIDATION_FAILED', /unknown operator/);
      const ok = await search('n', { a: { $gt: 4 } });
      expect(ok.status).toBe(200);
      expect(ok.body.items.map((i: { key: string }) => i.key)).toEqual(['num']);
      expect((await search('n', { a: { $gt: 5 } })).body.items).toEqual([]);
    });

    it('a numeric comparison over a stored string is 422 STORE_FILTER_TYPE_MISMATCH, not 500', async () => {
      refused(await search('mixed', { a: { $gt: 1 } }), 422, 'STORE_FILTER_TYPE_MISMATCH', /not a number/);
      expect((await search('mixed', { a: 'five' })).body.items.map((i: { key: string }) => i.key)).toEqual(['txt']);
    });

    it('ttl must be positive (or null); keys and values are bounded by settings', async () => {
      const put = (body: Record<string, unknown>) =>
        svc.http('PUT', '/store/items', { namespace: ['n'], key: 'k', value: { a: 1 }, ...body });
      refused(await put({ ttl: -1 }), 422, 'VALIDATION_FAILED', /ttl/);
      refused(await put({ ttl: 0 }), 422, 'VALIDATION_FAILED', /ttl/);
      refused(await put({ ttl: 1e300 }), 422, 'VALIDATION_FAILED', /ttl/);
      expect((await put({ ttl: 5 })).status).toBe(204);
      expect((await put({ ttl: null })).status).toBe(204);

      const longKey = await put({ key: 'k'.repeat(10_000) });
      refused(longKey, 422, 'STORE_KEY_TOO_LONG', /10000 characters; the limit is 1024 \(STORE_MAX_KEY_CHARS\)/);
      expect(longKey.body.error.details).toEqual({ setting: 'STORE_MAX_KEY_CHARS', limit: 1024 });
      refused(await put({ namespace: ['n'.repeat(2000)] }), 422, 'STORE_KEY_TOO_LONG', /namespace label/);
      expect((await put({ key: 'k'.repeat(1024) })).status).toBe(204);

      const big = await put({ value: { a: 'x'.repeat(900_000) } });
      refused(big, 413, 'STORE_VALUE_TOO_LARGE', /STORE_MAX_VALUE_BYTES/);
      expect((await put({ value: { a: 'x'.repeat(200_000) } })).status).toBe(204);
      // nothing of the refused writes was stored
      const got = await svc.http('GET', `/store/items?namespace=n&key=${'k'.repeat(10_000)}`);
      expect(got.body).toBeNull();
    });
  });

  describe('runs', () => {
    it('input: null with nothing to continue from is 422 EMPTY_INPUT, not a run failed INTERNAL_ERROR', async () => {
      refused(await svc.http('POST', '/runs/wait', { assistant_id: 'react', input: null }), 422, 'EMPTY_INPUT', /new thread has none/);
      const thread = await newThread();
      refused(
        await svc.http('POST', `/threads/${thread}/runs/wait`, { assistant_id: 'react', input: null }),
        422,
        'EMPTY_INPUT',
        /has none/,
      );
      // the refused request started no run: the thread is free for the next one
      const ok = await svc.http('POST', `/threads/${thread}/runs/wait`, { assistant_id: 'react', input: INPUT });
      expect(ok.status).toBe(200);
      expect(ok.body.__error__).toBeUndefined();
      // with a checkpoint, input: null continues from it (no error)
      const again = await svc.http('POST', `/threads/${thread}/runs/wait`, { assistant_id: 'react', input: null });
      expect(again.status).toBe(200);
      expect(again.body.__error__).toBeUndefined();
    });

    it('a checkpoint_id the thread does not have is 404 CHECKPOINT_NOT_FOUND', async () => {
      refused(
        await svc.http('POST', '/runs/wait', { assistant_id: 'react', input: null, checkpoint_id: 'bogus' }),
        404,
        'CHECKPOINT_NOT_FOUND',
      );
      const thread = await newThread();
      const first = await svc.http('POST', `/threads/${thread}/runs/wait`, { assistant_id: 'react', input: INPUT });
      expect(first.status).toBe(200);
      for (const checkpoint_id of ['bogus', '1f0b0000-0000-6000-8000-000000000000']) {
        refused(
          await svc.http('POST', `/threads/${thread}/runs/wait`, { assistant_id: 'react', input: INPUT, checkpoint_id }),
          404,
          'CHECKPOINT_NOT_FOUND',
        );
      }
      const history = await svc.http('POST', `/threads/${thread}/history`, { limit: 1 });
      const real = history.body[0].checkpoint.checkpoint_id as string;
      const fromReal = await svc.http('POST', `/threads/${thread}/runs/wait`, { assistant_id: 'react', input: INPUT, checkpoint_id: real });
      expect(fromReal.status).toBe(200);
      expect(fromReal.body.__error__).toBeUndefined();
    });

    it('command.goto to a node the graph lacks is 422 UNKNOWN_NODE naming the node and the nodes', async () => {
      const res = await svc.http('POST', '/runs/wait', { assistant_id: 'react', command: { goto: 'nowhere' } });
      refused(res, 422, 'UNKNOWN_NODE', /graph "react" has no node "nowhere"; its nodes: .*InputNode/);
      expect(res.body.error.details.nodes).toEqual(expect.arrayContaining(['InputNode', 'ToolNode', '__end__']));
      expect(res.body.error.details.nodes).not.toContain('__start__');
      refused(
        await svc.http('POST', '/runs/wait', { assistant_id: 'react', input: INPUT, command: { goto: ['ToolNode', 'nope'] } }),
        422,
        'UNKNOWN_NODE',
        /"nope"/,
      );
    });
  });

  describe('REST v1 and HTTP', () => {
    it('a v1 turn on a session whose run waits for its after_seconds is 409 SESSION_BUSY at once', async () => {
      const thread = await newThread();
      const later = await svc.http('POST', `/threads/${thread}/runs`, { assistant_id: 'react', input: INPUT, after_seconds: 600 });
      expect(later.status).toBe(200);
      const started = Date.now();
      const res = await svc.http('POST', '/v1/chat', { message: '2+2', session_id: thread, agent: 'react' });
      refused(res, 409, 'SESSION_BUSY', new RegExp(`run ${later.body.run_id} scheduled for later`));
      expect(Date.now() - started).toBeLessThan(5_000);
      // once the scheduled run is cancelled, the session takes turns again
      expect((await svc.http('POST', `/threads/${thread}/runs/${later.body.run_id}/cancel?wait=1`)).status).toBeLessThan(300);
      const turn = await svc.http('POST', '/v1/chat', { message: '2+2', session_id: thread, agent: 'react' });
      expect(turn.status).toBe(200);
      expect(turn.body.response).toMatch(/4/);
    });

    it('a malformed percent-encoding in a path is 400, not 500 (the public UI bundle files too)', async () => {
      for (const route of ['/ui/agent/%E0%A4%A', '/threads/%E0%A4%A']) {
        const res = await fetch(`${svc.url}${route}`);
        expect({ route, status: res.status }).toEqual({ route, status: 400 });
        expect(await res.text()).not.toMatch(NO_STACK);
      }
      expect((await fetch(`${svc.url}/ui/agent/entrypoint.js`)).status).toBe(404); // no ui configured: a well-formed path
    });

    it('GET /v1/contracts?kind=garbage is 400', async () => {
      refused(await svc.http('GET', '/v1/contracts?kind=garbage'), 400, 'VALIDATION_FAILED', /kind must be one of/);
      expect((await svc.http('GET', '/v1/contracts?kind=user')).status).toBe(200);
      expect((await svc.http('GET', '/v1/contracts')).status).toBe(200);
    });

    it('a 100 KB Authorization header is 431 with the JSON error body', async () => {
      const res = await fetch(`${svc.url}/v1/agents`, { headers: { authorization: `Bearer ${'x'.repeat(100_000)}` } });
      expect(res.status).toBe(431);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      const body = (await res.json()) as { error: { code: string; message: string }; detail: string };
      expect(body.error.code).toBe('HEADERS_TOO_LARGE');
      expect(body.error.message).toMatch(/maxHeaderSize/);
      expect(body.detail).toBe(body.error.message);
    });

    describe('an error answers in the dialect of its route, from one mapping', () => {
      const threadCount = async (): Promise<number> => (await svc.http('POST', '/threads/search', { limit: 1000 })).body.length;
      const lgOnly = (res: { body: any; headers: Headers }, code: string) => {
        expect(res.body.detail).toBe(res.body.error.message);
        expect(res.headers.get('x-error-code')).toBe(code);
      };
      const v1Only = (res: { body: any; headers: Headers }) => {
        expect(Object.keys(res.body)).toEqual(['error']);
        expect(res.headers.get('x-error-code')).toBeNull();
      };

      it.each([
        ['an oversized body', 413, 'PAYLOAD_TOO_LARGE', (field: string) => JSON.stringify({ [field]: 'x'.repeat(1_100_000) })],
        ['a NUL character (the input guard)', 400, 'INVALID_INPUT', (field: string) => `{"${field}": "a\\u0000b"}`],
      ])('%s: LangGraph shape on /threads, REST v1 shape on /v1/chat, nothing written', async (_, status, code, raw) => {
        const before = await threadCount();
        const lg = await svc.http('POST', '/threads', undefined, raw('thread_id'));
        refused(lg, status, code);
        lgOnly(lg, code);
        const v1 = await svc.http('POST', '/v1/chat', undefined, raw('message'));
        refused(v1, status, code);
        v1Only(v1);
        expect(await threadCount()).toBe(before); // neither a thread nor a v1 session (a thread too) was made
      });

      it('a path refused at the edge, before authentication (400 INVALID_PATH), in the dialect of its path', async () => {
        const lg = await svc.http('GET', '/threads/a%2Fb');
        refused(lg, 400, 'INVALID_PATH');
        lgOnly(lg, 'INVALID_PATH');
        const v1 = await svc.http('GET', '/v1/jobs/a%2Fb');
        refused(v1, 400, 'INVALID_PATH');
        v1Only(v1);
      });

      it('a body that is not JSON (415) in each dialect', async () => {
        const post = (path: string) =>
          fetch(`${svc.url}${path}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' }).then(async (r) => ({
            status: r.status,
            body: (await r.json()) as any,
            headers: r.headers,
          }));
        const lg = await post('/threads');
        refused(lg, 415, 'UNSUPPORTED_MEDIA_TYPE');
        lgOnly(lg, 'UNSUPPORTED_MEDIA_TYPE');
        const v1 = await post('/v1/chat');
        refused(v1, 415, 'UNSUPPORTED_MEDIA_TYPE');
        v1Only(v1);
      });
    });

    it('an unsupported method on an existing path is 405 with Allow; an unknown path stays 404', async () => {
      const patch = await svc.http('PATCH', '/v1/chat', { message: 'hi' });
      refused(patch, 405, 'METHOD_NOT_ALLOWED', /PATCH is not allowed on \/v1\/chat/);
      expect(patch.headers.get('allow')).toBe('POST');
      const put = await svc.http('PUT', `/threads/${await newThread()}`, {});
      expect(put.status).toBe(405);
      expect(put.headers.get('allow')).toBe('DELETE, GET, HEAD, PATCH');
      expect((await svc.http('DELETE', '/store/items/search')).headers.get('allow')).toBe('POST');
      refused(await svc.http('PATCH', '/v1/no-such-thing', {}), 404, 'NOT_FOUND');
    });
  });
});
