import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { errorBodyFetch } from './error-body-fetch';

/** An endpoint that echoes what it received; `/moved` answers 308 to `/echo`; `/vllm-error` answers vLLM's 400. */
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
      if (req.url === '/vllm-error') {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'error', message: 'tools are not supported', type: 'BadRequestError', code: 400 }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, path: req.url, body }));
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
    errorBodyFetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"q":"안녕"}', ...init });

  it('sends a JSON call uncopied (no redirects, no window) and it arrives whole', async () => {
    const res = await post('/echo');
    expect(await res.json()).toEqual({ method: 'POST', path: '/echo', body: '{"q":"안녕"}' });
    expect(inits).toHaveLength(1);
    expect(inits[0]).toMatchObject({ redirect: 'error', window: null });
  });

  it('still follows a redirect: the call is sent again as the caller asked', async () => {
    const res = await post('/moved');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ method: 'POST', path: '/echo', body: '{"q":"안녕"}' });
    expect(inits.map((i) => i?.redirect)).toEqual(['error', undefined]);
  });

  it("sends other requests as they are: a caller's redirect mode, a body that is not a string", async () => {
    await post('/echo', { redirect: 'follow' });
    await post('/echo', { body: new URLSearchParams({ a: '1' }) });
    expect(inits.map((i) => [i?.redirect, i && 'window' in i])).toEqual([
      ['follow', false],
      [undefined, false],
    ]);
  });

  it("rewraps vLLM's error body so the client reads its message", async () => {
    const res = await post('/vllm-error');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { message: 'tools are not supported', type: 'BadRequestError', param: null, code: 400 } });
  });

  it('lets a failed connection fail as before', async () => {
    await expect(errorBodyFetch('http://127.0.0.1:1/none', { method: 'POST', body: '{}' })).rejects.toThrow('fetch failed');
    expect(inits).toHaveLength(1);
  });
});
