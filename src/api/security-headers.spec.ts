import type { Request, Response } from 'express';
import helmet from 'helmet';

import { recordHeaders, securityHeaders } from './security-headers';

/** The headers the middleware sets for a request over HTTP or HTTPS to `hostname`. */
function headersFor(upgradeAlways: boolean, secure: boolean, hostname = 'console.test'): Map<string, string> {
  const headers = new Map<string, string>();
  const res = { setHeader: (k: string, v: string) => headers.set(k.toLowerCase(), v), removeHeader: () => undefined };
  const next = jest.fn();
  securityHeaders(upgradeAlways)({ secure, hostname } as Request, res as unknown as Response, next);
  expect(next).toHaveBeenCalledWith();
  return headers;
}
const csp = (upgradeAlways: boolean, secure: boolean) => headersFor(upgradeAlways, secure).get('content-security-policy') ?? '';

describe('securityHeaders', () => {
  it('asks browsers to upgrade to https only for requests that came over https, or when configured', () => {
    expect(csp(false, false)).not.toContain('upgrade-insecure-requests');
    expect(csp(false, true)).toContain('upgrade-insecure-requests');
    expect(csp(true, false)).toContain('upgrade-insecure-requests');
  });

  it("keeps the rest of helmet's default policy and headers", () => {
    const policy = csp(false, false);
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "object-src 'none'",
      "frame-ancestors 'self'",
      "script-src-attr 'none'",
    ]) {
      expect(policy).toContain(directive);
    }
    const headers = headersFor(false, false);
    expect(headers.get('x-content-type-options')).toBe('nosniff');
    expect(headers.get('strict-transport-security')).toMatch(/max-age=/);
    expect(headers.get('cross-origin-resource-policy')).toBe('same-origin');
  });

  it('sends the Cross-Origin-Opener-Policy where browsers apply it: over https or to a loopback host', () => {
    expect(headersFor(false, true).get('cross-origin-opener-policy')).toBe('same-origin');
    expect(headersFor(false, false, 'localhost').get('cross-origin-opener-policy')).toBe('same-origin');
    expect(headersFor(false, false, '127.0.0.1').get('cross-origin-opener-policy')).toBe('same-origin');
    expect(headersFor(false, false).has('cross-origin-opener-policy')).toBe(false);
  });
});

describe('securityHeaders, recorded once', () => {
  /** what helmet's own middlewares do to a response for the same request (the reference the recording must match) */
  function helmetLive(upgradeAlways: boolean, secure: boolean, hostname: string): Array<[string, string]> {
    const edits: Array<[string, string]> = [];
    const res = {
      setHeader: (k: string, v: string) => edits.push([k.toLowerCase(), String(v)]),
      removeHeader: (k: string) => edits.push([k.toLowerCase(), '(removed)']),
    };
    const req = { secure, hostname } as Request;
    const run = (mw: (req: Request, res: Response, next: (err?: unknown) => void) => void) =>
      mw(req, res as unknown as Response, (err) => expect(err).toBeUndefined());
    run(helmet({ contentSecurityPolicy: false, crossOriginOpenerPolicy: false }));
    run(
      upgradeAlways || secure
        ? helmet.contentSecurityPolicy()
        : helmet.contentSecurityPolicy({ directives: { upgradeInsecureRequests: null } }),
    );
    if (secure || hostname === 'localhost') run(helmet.crossOriginOpenerPolicy());
    return edits;
  }

  function recorded(upgradeAlways: boolean, secure: boolean, hostname: string): Array<[string, string]> {
    const edits: Array<[string, string]> = [];
    const res = {
      setHeader: (k: string, v: string) => edits.push([k.toLowerCase(), String(v)]),
      removeHeader: (k: string) => edits.push([k.toLowerCase(), '(removed)']),
    };
    securityHeaders(upgradeAlways)({ secure, hostname } as Request, res as unknown as Response, jest.fn());
    return edits;
  }

  it.each([
    [false, false, 'console.test'],
    [false, true, 'console.test'],
    [true, false, 'console.test'],
    [false, false, 'localhost'],
  ])('sets exactly the headers helmet sets (upgrade always %s, https %s, host %s), X-Powered-By removed', (upgrade, secure, host) => {
    const live = helmetLive(upgrade, secure, host);
    expect(live.length).toBeGreaterThan(10);
    expect(new Set(recorded(upgrade, secure, host).map(([k, v]) => `${k}: ${v}`))).toEqual(new Set(live.map(([k, v]) => `${k}: ${v}`)));
    expect(recorded(upgrade, secure, host)).toContainEqual(['x-powered-by', '(removed)']);
  });

  it('refuses to record a middleware that does not answer synchronously', () => {
    expect(() => recordHeaders(() => undefined)).toThrow(/synchronously/);
  });
});
