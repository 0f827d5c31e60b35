import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/** Browsers honour the Cross-Origin-Opener-Policy only from a trustworthy origin: HTTPS or the loopback host. */
const trustworthy = (req: Request) => req.secure || LOOPBACK.has(req.hostname) || req.hostname.endsWith('.localhost');

/** What a helmet middleware does to a response: the headers it sets, in order, and the ones it removes. */
interface HeaderEdits {
  set: Array<[name: string, value: string]>;
  remove: string[];
}

/**
 * The headers `middleware` sets, recorded once on a stand-in response. helmet's headers are constants of its
 * options (no CSP nonces or functions here), so a request needs only these setHeader calls, not helmet's chain
 * of a dozen middlewares that rebuild the policy string each time.
 */
export function recordHeaders(middleware: (req: never, res: never, next: (err?: unknown) => void) => void): HeaderEdits {
  const edits: HeaderEdits = { set: [], remove: [] };
  const res = {
    setHeader: (name: string, value: string) => edits.set.push([name, String(value)]),
    removeHeader: (name: string) => edits.remove.push(name),
  };
  let called = false;
  middleware({} as never, res as never, (err) => {
    if (err) throw err;
    called = true;
  });
  if (!called) throw new Error('a security header middleware did not finish synchronously');
  return edits;
}

function apply(res: Response, edits: HeaderEdits): void {
  for (const name of edits.remove) res.removeHeader(name);
  for (const [name, value] of edits.set) res.setHeader(name, value);
}

/**
 * helmet's headers with its default CSP, except `upgrade-insecure-requests`: that directive makes a browser
 * fetch every asset of a page served over plain HTTP by https, so `/console` and `/docs` opened at
 * http://<any host but localhost> stay white. It is sent only on requests that came over HTTPS, or on all of
 * them with `CSP_UPGRADE_INSECURE_REQUESTS` (a service reachable only through an HTTPS proxy). The
 * Cross-Origin-Opener-Policy goes only where browsers apply it (elsewhere Chromium logs it as an error).
 */
export function securityHeaders(upgradeAlways: boolean): Middleware {
  const rest = recordHeaders(helmet({ contentSecurityPolicy: false, crossOriginOpenerPolicy: false }));
  const upgrading = recordHeaders(helmet.contentSecurityPolicy());
  const plain = recordHeaders(helmet.contentSecurityPolicy({ directives: { upgradeInsecureRequests: null } }));
  const coop = recordHeaders(helmet.crossOriginOpenerPolicy());
  return (req, res, next) => {
    apply(res, rest);
    apply(res, upgradeAlways || req.secure ? upgrading : plain);
    if (trustworthy(req)) apply(res, coop);
    next();
  };
}
