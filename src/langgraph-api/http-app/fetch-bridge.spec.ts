import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';

import { ResponseInterception, toFetchRequest } from './fetch-bridge';

function post(chunks: string[]): ExpressRequest {
  const props = { method: 'POST', originalUrl: '/p?q=1', protocol: 'http', headers: { host: 'svc:1', 'x-in': 'a' } };
  return Object.assign(Readable.from(chunks.map((c) => Buffer.from(c))), props) as unknown as ExpressRequest;
}

describe('toFetchRequest', () => {
  const limit = (bytes: number) => ({ bytes, error: () => new Error('over the limit') });

  it('is the request as the client sent it; its body is read from the socket only when asked for', async () => {
    const source = post(['{"a":', '1}']);
    const request = toFetchRequest(source, limit(100));
    expect([request.url, request.headers.get('x-in'), (source as unknown as Readable).readableFlowing]).toEqual([
      'http://svc:1/p?q=1',
      'a',
      null,
    ]);
    expect(await request.json()).toEqual({ a: 1 });
  });

  it('refuses a body past the limit while it is read', async () => {
    await expect(toFetchRequest(post(['12345', '67890']), limit(7)).text()).rejects.toThrow('over the limit');
  });
});

/** one request to a server whose handler plays Nest (writes `res`) while `middleware` holds the response */
async function through(nest: (res: ServerResponse) => void, middleware: (r: Response) => Response | Promise<Response>) {
  const server = createServer((_req, res) => {
    const held = new ResponseInterception(res as ExpressResponse);
    nest(res);
    void held.response.then(middleware).then((final) => held.commit(final));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    return { status: res.status, added: res.headers.get('x-added'), own: res.headers.get('x-own'), body: await res.text() };
  } finally {
    server.close();
  }
}

describe('ResponseInterception', () => {
  it("lets middleware add headers to Nest's response; the body, written before and after, goes out as Nest wrote it", async () => {
    const seen = await through(
      (res) => {
        res.statusCode = 201;
        res.setHeader('x-own', 'nest');
        res.write('one,');
        setTimeout(() => res.end('two'), 20);
      },
      (r) => {
        const out = new Response(r.body, r);
        out.headers.set('x-added', 'app');
        return out;
      },
    );
    expect(seen).toEqual({ status: 201, added: 'app', own: 'nest', body: 'one,two' });
  });

  it("writes the middleware's own response in place of Nest's", async () => {
    const seen = await through(
      (res) => res.writeHead(500, { 'x-own': 'nest' }).end('nest'),
      () => new Response('replaced', { status: 202, headers: { 'x-added': 'app' } }),
    );
    expect(seen).toEqual({ status: 202, added: 'app', own: null, body: 'replaced' });
  });
});
