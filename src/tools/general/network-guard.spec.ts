import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { blockedAddressReason } from './ip-policy';
import { safeFetch, type SafeFetchOptions } from './network-guard';
import { ToolError } from './tool-error';

interface Seen {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

async function startServer(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', method: req.method ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { port, seen, close };
}

const refused = [
  '127.0.0.1',
  '127.255.255.254',
  '10.1.2.3',
  '172.16.0.1',
  '172.31.255.255',
  '192.168.1.1',
  '169.254.169.254',
  '169.254.1.1',
  '100.64.0.1',
  '100.127.255.255',
  '0.0.0.0',
  '0.1.2.3',
  '224.0.0.1',
  '255.255.255.255',
  '198.18.0.1',
  '::1',
  '::',
  '[::1]',
  'fe80::1',
  'fe80::1%eth0',
  'fc00::1',
  'fd12:3456::1',
  'fd00:ec2::254',
  'ff02::1',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::FFFF:169.254.169.254',
  '::ffff:a9fe:a9fe',
  '::ffff:10.0.0.1',
  '::ffff:0:127.0.0.1',
  '::127.0.0.1',
  '64:ff9b::a9fe:a9fe',
  '64:ff9b:1::1',
  '2002:7f00:1::',
  '2001:0:4136::1',
  'not-an-ip',
];
const allowed = [
  '8.8.8.8',
  '93.184.216.34',
  '172.32.0.1',
  '100.128.0.1',
  '169.255.0.1',
  '2606:4700:4700::1111',
  '::ffff:8.8.8.8',
  '2002:808:808::1',
  '64:ff9b::808:808',
];

describe('ip policy', () => {
  it.each(refused)('refuses %s', (ip) => {
    expect(blockedAddressReason(ip)).toEqual(expect.any(String));
  });
  it.each(allowed)('allows public %s', (ip) => {
    expect(blockedAddressReason(ip)).toBeNull();
  });
  it('names the category', () => {
    expect(blockedAddressReason('169.254.169.254')).toMatch(/metadata/);
    expect(blockedAddressReason('::ffff:192.168.0.1')).toMatch(/IPv4-mapped.*private/);
    expect(blockedAddressReason('fd00::1')).toBe('unique-local');
  });
});

describe('safeFetch', () => {
  let srv: Awaited<ReturnType<typeof startServer>>;
  const hosts: Record<string, string[]> = {
    'api.test': ['127.0.0.1'],
    'other.test': ['127.0.0.1'],
    'internal.test': ['127.0.0.1'],
    'metadata.test': ['169.254.169.254'],
    'mixed.test': ['93.184.216.34', '10.0.0.7'],
  };
  const lookup = jest.fn(async (host: string) => {
    const found = hosts[host];
    if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return found;
  });
  // api.test/other.test are "trusted" hosts that happen to live on 127.0.0.1; nothing else private is allowed.
  const guarded: SafeFetchOptions = { timeoutMs: 2000, maxBytes: 1000, lookup, allowedPrivateHosts: ['api.test', 'other.test'] };
  const open: SafeFetchOptions = { timeoutMs: 2000, maxBytes: 1000, allowPrivateNetwork: true, lookup };
  const url = (host: string, p: string) => `http://${host}:${srv.port}${p}`;

  beforeAll(async () => {
    srv = await startServer((req, res) => {
      const [p, q] = (req.url ?? '').split('?');
      const to = new URLSearchParams(q).get('to');
      if (p === '/redirect' && to) return res.writeHead(Number(new URLSearchParams(q).get('status') ?? 302), { location: to }).end();
      if (p === '/loop') return res.writeHead(302, { location: '/loop' }).end();
      if (p === '/hang') return; // never answers
      if (p === '/stall') return res.writeHead(200, { 'content-type': 'text/plain' }).write('partial'); // body never ends
      if (p === '/big-declared') return res.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000));
      if (p === '/big-chunked') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        for (let i = 0; i < 10; i++) res.write('y'.repeat(300));
        return res.end();
      }
      if (p === '/echo')
        return res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ method: req.method, auth: req.headers.authorization ?? null }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, path: p }));
    });
  });
  afterAll(() => srv.close());
  beforeEach(() => {
    srv.seen.length = 0;
  });

  it('fetches from a local server when private networks are explicitly allowed (test mode)', async () => {
    const res = await safeFetch(url('127.0.0.1', '/hello'), {}, open);
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ ok: true, path: '/hello' });
  });

  it.each(['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '0.0.0.0', '2130706433', '0x7f.0.0.1', '127.1'])(
    'refuses the literal address %s without connecting',
    async (host) => {
      await expect(safeFetch(url(host, '/secret'), {}, { timeoutMs: 2000, maxBytes: 1000 })).rejects.toThrow(/refused/);
      expect(srv.seen).toHaveLength(0);
    },
  );

  it('refuses the cloud metadata address and link-local/ULA IPv6 before connecting', async () => {
    for (const u of ['http://169.254.169.254/latest/meta-data/', 'http://[fe80::1]/', 'http://[fd00:ec2::254]/', 'http://[::]/']) {
      await expect(safeFetch(u, {}, { timeoutMs: 500, maxBytes: 1000 })).rejects.toThrow(ToolError);
    }
  });

  it('refuses host names that resolve to private addresses, including when only one of several does', async () => {
    await expect(safeFetch(url('internal.test', '/secret'), {}, guarded)).rejects.toThrow(/refused: host "internal.test".*loopback/);
    await expect(safeFetch('http://metadata.test/', {}, guarded)).rejects.toThrow(/link-local/);
    await expect(safeFetch('http://mixed.test/', {}, guarded)).rejects.toThrow(/private/);
    expect(srv.seen).toHaveLength(0);
  });

  it('refuses localhost with the real resolver', async () => {
    await expect(safeFetch(`http://localhost:${srv.port}/secret`, {}, { timeoutMs: 2000, maxBytes: 1000 })).rejects.toThrow(
      /refused.*loopback/,
    );
    expect(srv.seen).toHaveLength(0);
  });

  it.each(['file:///etc/passwd', 'ftp://example.com/x', 'data:text/plain,hi', 'gopher://example.com/'])(
    'refuses the scheme of %s',
    async (u) => {
      await expect(safeFetch(u, {}, open)).rejects.toThrow(/only http and https/);
    },
  );

  it('refuses credentials in the URL and unparsable URLs', async () => {
    await expect(safeFetch(`http://user:pw@127.0.0.1:${srv.port}/`, {}, open)).rejects.toThrow(/credentials/);
    await expect(safeFetch('not a url', {}, open)).rejects.toThrow(/not a valid URL/);
  });

  it('reports an unresolvable host as a ToolError', async () => {
    await expect(safeFetch('http://nowhere.test/', {}, guarded)).rejects.toThrow(/could not resolve host "nowhere.test"/);
  });

  it('follows a redirect between allowed hosts (control for the refusals below)', async () => {
    const res = await safeFetch(url('api.test', `/redirect?to=${encodeURIComponent(url('other.test', '/ok'))}`), {}, guarded);
    expect(res.json()).toEqual({ ok: true, path: '/ok' });
    expect(res.url).toBe(url('other.test', '/ok'));
    expect(srv.seen.map((s) => s.path.split('?')[0])).toEqual(['/redirect', '/ok']);
  });

  it.each([
    ['a host resolving to loopback', (port: number) => `http://internal.test:${port}/secret`, /^refused: host "internal.test"/],
    ['the metadata address', () => 'http://169.254.169.254/latest/meta-data/iam', /^refused: address 169.254.169.254/],
    [
      'an IPv4-mapped IPv6 loopback',
      (port: number) => `http://[::ffff:127.0.0.1]:${port}/secret`,
      /^refused: address ::ffff:7f00:1.*IPv4-mapped/,
    ],
    ['a host resolving to metadata', () => 'http://metadata.test/latest', /^refused: host "metadata.test"/],
  ])('refuses a redirect to %s and never requests it', async (_label, target, message) => {
    const first = url('api.test', `/redirect?to=${encodeURIComponent(target(srv.port))}`);
    await expect(safeFetch(first, {}, guarded)).rejects.toThrow(message);
    expect(srv.seen.map((s) => s.path.split('?')[0])).toEqual(['/redirect']);
  });

  it('the same private redirect is followed when the guard is off, so the refusal above is the guard', async () => {
    const first = url('api.test', `/redirect?to=${encodeURIComponent(url('internal.test', '/secret'))}`);
    await expect(safeFetch(first, {}, open)).resolves.toMatchObject({ status: 200 });
    expect(srv.seen.map((s) => s.path)).toContain('/secret');
  });

  it('stops after 5 redirects', async () => {
    await expect(safeFetch(url('api.test', '/loop'), {}, guarded)).rejects.toThrow(/too many redirects/);
    expect(srv.seen).toHaveLength(6);
  });

  it('drops the Authorization header on a cross-origin redirect but keeps it on the same origin', async () => {
    const init = { headers: { authorization: 'Bearer secret' } };
    const cross = await safeFetch(url('api.test', `/redirect?to=${encodeURIComponent(url('other.test', '/echo'))}`), init, guarded);
    expect(cross.json()).toMatchObject({ auth: null });
    const same = await safeFetch(url('api.test', '/redirect?to=/echo'), init, guarded);
    expect(same.json()).toMatchObject({ auth: 'Bearer secret' });
  });

  it('turns POST into GET on 303 and keeps POST on 307', async () => {
    const post = { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } };
    const r303 = await safeFetch(url('api.test', '/redirect?status=303&to=/echo'), post, guarded);
    expect(r303.json()).toMatchObject({ method: 'GET' });
    const r307 = await safeFetch(url('api.test', '/redirect?status=307&to=/echo'), post, guarded);
    expect(r307.json()).toMatchObject({ method: 'POST' });
  });

  it('times out when the server never answers', async () => {
    const started = Date.now();
    await expect(safeFetch(url('api.test', '/hang'), {}, { ...guarded, timeoutMs: 300 })).rejects.toThrow(/timed out after 300 ms/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('counts a hanging DNS lookup against the deadline', async () => {
    const never = { timeoutMs: 200, maxBytes: 1000, lookup: () => new Promise<string[]>(() => undefined) };
    await expect(safeFetch('http://slow-dns.test/', {}, never)).rejects.toThrow(/timed out after 200 ms/);
  });

  it('times out when the body stalls halfway', async () => {
    await expect(safeFetch(url('api.test', '/stall'), {}, { ...guarded, timeoutMs: 300 })).rejects.toThrow(/timed out/);
  });

  it('refuses an oversize response, declared or streamed', async () => {
    await expect(safeFetch(url('api.test', '/big-declared'), {}, guarded)).rejects.toThrow(/too large: 5000 bytes \(limit 1000\)/);
    await expect(safeFetch(url('api.test', '/big-chunked'), {}, guarded)).rejects.toThrow(/too large/);
    await expect(safeFetch(url('api.test', '/big-chunked'), {}, { ...guarded, maxBytes: 5000 })).resolves.toMatchObject({ status: 200 });
  });

  it('passes a caller abort through instead of turning it into a ToolError', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const err = await safeFetch(url('api.test', '/hang'), { signal: controller.signal }, guarded).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'AbortError' });
    expect(err).not.toBeInstanceOf(ToolError);
  });
});
