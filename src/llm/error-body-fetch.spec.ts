import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { errorBodyFetch } from './error-body-fetch';
import { isModelUnavailable } from './model-errors';

/**
 * An endpoint that echoes what it received (method, path, body, authorization) with an `x-request-id`; `/moved`
 * answers 308 to `/echo`; `/vllm-error` vLLM's 400; `/empty` 204; `/slow` never answers; a body with
 * `"stream":true` gets two SSE events.
 */
function endpoint(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.url === '/moved') {
      res.writeHead(308, { location: '/echo' });
      res.end();
      return;
    }
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      if (req.url === '/slow') return;
      if (req.url === '/empty') {
        res.writeHead(204);
        res.end();
        return;
      }
      if (req.url === '/vllm-error') {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'error', message: 'tools are not supported', type: 'BadRequestError', code: 400 }));
        return;
      }
      if (body.includes('"stream":true')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"n":1}\n\n');
        res.end('data: [DONE]\n\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req-1', 'set-cookie': ['a=1', 'b=2'] });
      res.end(JSON.stringify({ method: req.method, path: req.url, body, authorization: req.headers.authorization ?? null }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })),
  );
}

describe('errorBodyFetch', () => {
  let url: string;
  let server: Server;
  const realFetch = globalThis.fetch;
  const inits: Array<RequestInit | undefined> = [];

  beforeAll(async () => ({ url, server } = await endpoint()));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    inits.length = 0;
    globalThis.fetch = (input, init) => {
      inits.push(init);
      return realFetch(input, init);
    };
  });
  afterEach(() => (globalThis.fetch = realFetch));

  const post = (path: string, init: RequestInit = {}) =>
    errorBodyFetch(`${url}${path}`, {
      method: 'POST',
      headers: new Headers({ 'content-type': 'application/json', authorization: 'Bearer k' }),
      body: '{"q":"안녕"}',
      ...init,
    });

  it("sends a JSON call without fetch's WHATWG layer: it arrives whole, its status, headers and text come back", async () => {
    const res = await post('/echo');
    expect(inits).toHaveLength(0);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('req-1');
    expect(res.headers.get('set-cookie')).toBe('a=1, b=2');
    expect(await res.json()).toEqual({ method: 'POST', path: '/echo', body: '{"q":"안녕"}', authorization: 'Bearer k' });
    // headers as a plain object, and a method in lower case (sent as fetch sends it)
    const plain = await post('/echo', { method: 'post', headers: { authorization: 'Bearer p' } });
    expect(await plain.json()).toMatchObject({ method: 'POST', authorization: 'Bearer p' });
  });

  it('sends a streamed call through fetch, its body a stream', async () => {
    const res = await post('/echo', { body: '{"model":"m","stream":true}' });
    expect(inits).toHaveLength(1);
    expect(res.body).toBeInstanceOf(ReadableStream);
    expect(await res.text()).toBe('data: {"n":1}\n\ndata: [DONE]\n\n');
  });

  it('still follows a redirect: the call is sent again through fetch, as the caller asked', async () => {
    const res = await post('/moved');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ method: 'POST', path: '/echo', body: '{"q":"안녕"}', authorization: 'Bearer k' });
    expect(inits.map((i) => i?.redirect)).toEqual([undefined]);
  });

  it("sends other requests through fetch as they are: a caller's redirect mode, a body that is not a string", async () => {
    await post('/echo', { redirect: 'follow' });
    await post('/echo', { body: new URLSearchParams({ a: '1' }) });
    expect(inits.map((i) => i?.redirect)).toEqual(['follow', undefined]);
  });

  it('answers a 204 with no body', async () => {
    const res = await post('/empty');
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
  });

  it("rewraps vLLM's error body so the client reads its message", async () => {
    const res = await post('/vllm-error');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { message: 'tools are not supported', type: 'BadRequestError', param: null, code: 400 } });
  });

  it('fails a refused connection with its code, and an aborted call as an abort (the client reads both)', async () => {
    const refused = await errorBodyFetch('http://127.0.0.1:1/none', { method: 'POST', body: '{}' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'ECONNREFUSED' });
    expect(isModelUnavailable(refused)).toBe(true);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const aborted = await post('/slow', { signal: controller.signal }).catch((e: unknown) => e);
    expect((aborted as Error).name).toBe('AbortError');
    expect(isModelUnavailable(aborted)).toBe(false);
  });
});
