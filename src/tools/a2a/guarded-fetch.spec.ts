import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { guardedFetch } from './guarded-fetch';

/** A local server: `/stream` sends `n` chunks of 1 KiB, `/echo` answers the headers it got. */
let server: http.Server;
let base: string;
let chunksSent = 0;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url?.startsWith('/stream')) {
      const n = Number(new URL(req.url, 'http://x').searchParams.get('n'));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let i = 0;
      const timer = setInterval(() => {
        if (i++ >= n || res.destroyed) return (clearInterval(timer), res.end());
        chunksSent++;
        res.write(`data: ${'x'.repeat(1016)}\n\n`);
      }, 2);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(req.headers));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const allowed = { timeoutMs: 5000, maxBytes: 8 * 1024, allowedPrivateHosts: ['127.0.0.1'] };

describe('the A2A SDK’s fetch, on the SSRF guard', () => {
  it('refuses a private address unless its host is allowed', async () => {
    const f = guardedFetch({ timeoutMs: 5000, maxBytes: 1024 });
    await expect(f(`${base}/echo`)).rejects.toThrow(/refused: address 127\.0\.0\.1 is not allowed: loopback/);
    const ok = await guardedFetch(allowed)(`${base}/echo`);
    expect(ok.status).toBe(200);
  });

  it('streams a body within the cap, and aborts one past it as it is read', async () => {
    const small = await guardedFetch(allowed)(`${base}/stream?n=4`);
    expect((await small.text()).length).toBe(4 * 1024);

    chunksSent = 0;
    const big = await guardedFetch(allowed)(`${base}/stream?n=1000`);
    await expect(big.text()).rejects.toThrow(/response too large: more than 8192 bytes/);
    await new Promise((r) => setTimeout(r, 100));
    expect(chunksSent).toBeLessThan(100); // the connection was dropped, not read to the end
  });

  it('sends the configured credentials to their origin only', async () => {
    const f = guardedFetch(allowed, { origin: base, headers: { authorization: 'Bearer secret' } });
    const same = (await (await f(`${base}/echo`, { headers: { accept: 'application/json' } })).json()) as Record<string, string>;
    expect(same).toMatchObject({ authorization: 'Bearer secret', accept: 'application/json' });
    const other = guardedFetch(allowed, { origin: 'http://elsewhere.example', headers: { authorization: 'Bearer secret' } });
    const sent = (await (await other(`${base}/echo`)).json()) as Record<string, string>;
    expect(sent.authorization).toBeUndefined();
  });

  it('stops at the caller’s signal', async () => {
    const ctrl = new AbortController();
    const res = await guardedFetch({ ...allowed, maxBytes: 10 * 1024 * 1024 })(`${base}/stream?n=100000`, { signal: ctrl.signal });
    const reading = res.text();
    ctrl.abort();
    await expect(reading).rejects.toThrow();
  });
});
