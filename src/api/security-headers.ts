import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/** Browsers honour the Cross-Origin-Opener-Policy only from a trustworthy origin: HTTPS or the loopback host. */
const trustworthy = (req: Request) => req.secure || LOOPBACK.has(req.hostname) || req.hostname.endsWith('.localhost');

/**
 * helmet's headers with its default CSP, except `upgrade-insecure-requests`: that directive makes a browser
 * fetch every asset of a page served over plain HTTP by https, so `/console` and `/docs` opened at
 * http://<any host but localhost> stay white. It is sent only on requests that came over HTTPS, or on all of
 * them with `CSP_UPGRADE_INSECURE_REQUESTS` (a service reachable only through an HTTPS proxy). The
 * Cross-Origin-Opener-Policy goes only where browsers apply it (elsewhere Chromium logs it as an error).
 */
export function securityHeaders(upgradeAlways: boolean): Middleware {
  const rest = helmet({ contentSecurityPolicy: false, crossOriginOpenerPolicy: false });
  const upgrading = helmet.contentSecurityPolicy();
  const plain = helmet.contentSecurityPolicy({ directives: { upgradeInsecureRequests: null } });
  const coop = helmet.crossOriginOpenerPolicy();
  return (req, res, next) => {
    const csp = upgradeAlways || req.secure ? upgrading : plain;
    const then = (go: () => void) => (err?: unknown) => (err ? next(err) : go());
    rest(
      req,
      res,
      then(() =>
        csp(
          req,
          res,
          then(() => (trustworthy(req) ? coop(req, res, next) : next())),
        ),
      ),
    );
  };
}
