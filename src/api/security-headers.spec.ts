import type { Request, Response } from 'express';

import { securityHeaders } from './security-headers';

/** The CSP the middleware sets for a request over HTTP or HTTPS. */
function csp(upgradeAlways: boolean, secure: boolean): string {
  const headers = new Map<string, string>();
  const res = { setHeader: (k: string, v: string) => headers.set(k.toLowerCase(), v), removeHeader: () => undefined };
  const next = jest.fn();
  securityHeaders(upgradeAlways)({ secure } as Request, res as unknown as Response, next);
  expect(next).toHaveBeenCalledWith();
  return headers.get('content-security-policy') ?? '';
}

describe('securityHeaders', () => {
  it('asks browsers to upgrade to https only for requests that came over https, or when configured', () => {
    expect(csp(false, false)).not.toContain('upgrade-insecure-requests');
    expect(csp(false, true)).toContain('upgrade-insecure-requests');
    expect(csp(true, false)).toContain('upgrade-insecure-requests');
  });

  it("keeps the rest of helmet's default policy", () => {
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
  });
});
