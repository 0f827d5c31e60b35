import type { Request, Response } from 'express';

import { securityHeaders } from './security-headers';

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
