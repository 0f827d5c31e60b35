import type { Request, Response } from 'express';

import type { DomainException } from '../core/errors';
import { canonicalTarget, isProxyEntry, isValidHost, proxyTrust, requestEdge, requestUrl } from './request-edge';

describe('canonicalTarget', () => {
  it.each([
    '/health/../custom/secret',
    '/health/./x',
    '/health/..',
    '/health/%2e%2e/custom/secret',
    '/health/%2E%2E/custom/secret',
    '/health/.%2e/custom',
    '/health%2f..%2fcustom',
    '/health/%2fcustom',
    '/health/%5c../custom',
    '/health\\..\\custom\\secret',
    '/health/%252e%252e/custom',
    '/health/%25%32%65',
    '//custom/secret',
    '/health//x',
    '/health/%00',
    '/health/%0a..',
    '/health/%zz',
    '/health/%e',
    '/health/%C0%AE%C0%AE/custom',
    '/threads/%FF',
    '/health/x#/../../custom',
    '/health/\t../custom',
    '/health/ ../x',
    '/health/\u00e9',
    'http://evil.example/health',
    '*',
    '/threads?x=\u0001',
    '/threads?a#b',
  ])('refuses %j', (target) => {
    expect(canonicalTarget(target)).toHaveProperty('refused');
  });

  it.each([
    ['/threads', '/threads'],
    ['/health/live?verbose=1', '/health/live?verbose=1'],
    ['/%68ealth/live', '/health/live'],
    ['/threads/%7Ea', '/threads/~a'],
    ['/store/items?namespace=%EC%95%88%EB%85%95', '/store/items?namespace=%EC%95%88%EB%85%95'],
    ['/threads/%ec%95%88', '/threads/%EC%95%88'],
    ['/threads/a.b/state', '/threads/a.b/state'],
    ['/threads/...', '/threads/...'],
    ['/docs/', '/docs/'],
    ['/threads?q=a/../b', '/threads?q=a/../b'],
  ])('accepts %j as %j', (target, canonical) => {
    expect(canonicalTarget(target)).toEqual({ target: canonical });
  });

  it('leaves nothing for new URL() to normalise: its pathname is the canonical path', () => {
    for (const target of ['/threads/%EC%95%88/state', "/x/!$&'()*+,;=:@", '/a.b/c-d_e~f']) {
      const out = canonicalTarget(target) as { target: string };
      expect(new URL(out.target, 'http://h').pathname).toBe(out.target);
    }
  });
});

describe('hosts and proxies', () => {
  it('accepts host names, IPv4 and bracketed IPv6 with ports; refuses the rest', () => {
    expect(['localhost', 'api.example.com:8443', '127.0.0.1:3000', '[::1]:3000', 'svc_internal', 'a'].map(isValidHost)).toEqual(
      Array(6).fill(true),
    );
    const bad = ['', 'evil@localhost', 'h/x', 'h?x', 'h#x', 'h x', '[::1', 'h:port', 'h:123456', '-h', 'h\\x', '\u00e9.com'];
    expect(bad.filter(isValidHost)).toEqual([]);
  });

  it('trusts no proxy by default, and exactly the configured addresses and ranges', () => {
    expect(proxyTrust([])('127.0.0.1')).toBe(false);
    const trusted = proxyTrust(['10.0.0.0/8', 'loopback', '2001:db8::/32']);
    expect(['10.1.2.3', '::ffff:10.1.2.3', '127.0.0.1', '::1', '2001:db8::5'].map(trusted)).toEqual(Array(5).fill(true));
    expect(['11.0.0.1', '192.168.0.1', '2001:db9::1', undefined].map(trusted)).toEqual(Array(4).fill(false));
    expect(['1.2.3.4', '10.0.0.0/8', '::1', 'loopback'].every(isProxyEntry)).toBe(true);
    expect(['host', '1.2.3.4/40', '::1/129', ''].some(isProxyEntry)).toBe(false);
  });
});

/** the middleware's outcome for a request: refused (its error) or passed on (the request as later layers see it) */
function edge(target: string, headers: Record<string, string>, peer = '203.0.113.9', trusted: string[] = []) {
  const req = { originalUrl: target, url: target, headers: { ...headers }, socket: { remoteAddress: peer } } as unknown as Request;
  let refused: DomainException | undefined;
  let passed = false;
  requestEdge(proxyTrust(trusted), (err) => (refused = err))(req, {} as Response, () => (passed = true));
  return { refused, passed, req };
}

describe('requestEdge', () => {
  it('refuses an ambiguous path and a malformed Host with 400, and rewrites an encoded path once for every layer', () => {
    expect(edge('/health/../custom/secret', { host: 'h' }).refused).toMatchObject({ status: 400, code: 'INVALID_PATH' });
    expect(edge('/threads', { host: 'a b' }).refused).toMatchObject({ status: 400, code: 'INVALID_HOST', details: { header: 'Host' } });
    const { passed, req } = edge('/%68ealth/live?x=1', { host: 'h' });
    expect([passed, req.url, req.originalUrl]).toEqual([true, '/health/live?x=1', '/health/live?x=1']);
  });

  it('drops forwarded headers from an untrusted peer; checks them from a trusted proxy', () => {
    const forwarded = {
      host: 'h',
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'https',
      forwarded: 'for=1.2.3.4',
      'x-real-ip': '1.2.3.4',
    };
    const untrusted = edge('/threads', forwarded);
    expect([untrusted.passed, Object.keys(untrusted.req.headers)]).toEqual([true, ['host']]);
    const proxied = edge('/threads', forwarded, '10.0.0.2', ['10.0.0.0/8']);
    expect([proxied.passed, proxied.req.headers['x-forwarded-host']]).toEqual([true, 'evil.example']);
    expect(edge('/threads', { host: 'h', 'x-forwarded-host': 'a/b' }, '10.0.0.2', ['10.0.0.0/8']).refused?.code).toBe('INVALID_HOST');
    expect(edge('/threads', { host: 'h', 'x-forwarded-proto': 'gopher' }, '10.0.0.2', ['10.0.0.0/8']).refused?.status).toBe(400);
    // a malformed forwarded header from anyone else is simply not read
    expect(edge('/threads', { host: 'h', 'x-forwarded-host': 'a/b' }).passed).toBe(true);
  });
});

describe('requestUrl', () => {
  const req = (originalUrl: string, host?: string) =>
    ({ originalUrl, protocol: 'http', headers: host === undefined ? {} : { host } }) as Request;

  it('is the canonical target on the request host', () => {
    expect(requestUrl(req('/custom/x?y=1', 'api.example:8080')).href).toBe('http://api.example:8080/custom/x?y=1');
    expect(requestUrl(req('/threads')).host).toBe('localhost');
  });

  it('refuses (400, never a 500) what new URL() cannot read or would read as another path', () => {
    expect(() => requestUrl(req('/x', 'a b'))).toThrow(expect.objectContaining({ status: 400, code: 'INVALID_HOST' }));
    expect(() => requestUrl(req('/health/../custom', 'h'))).toThrow(expect.objectContaining({ status: 400, code: 'INVALID_PATH' }));
    expect(() => requestUrl(req('//evil/x', 'h'))).toThrow(expect.objectContaining({ status: 400 }));
  });
});
