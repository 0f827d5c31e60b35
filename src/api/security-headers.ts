import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';

/**
 * helmet's headers with its default CSP, except `upgrade-insecure-requests`: that directive makes a browser
 * fetch every asset of a page served over plain HTTP by https, so `/console` and `/docs` opened at
 * http://<any host but localhost> stay white. It is sent only on requests that came over HTTPS, or on all of
 * them with `CSP_UPGRADE_INSECURE_REQUESTS` (a service reachable only through an HTTPS proxy).
 */
export function securityHeaders(upgradeAlways: boolean) {
  const upgrading = helmet();
  const plain = helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } });
  return (req: Request, res: Response, next: NextFunction): void => (upgradeAlways || req.secure ? upgrading : plain)(req, res, next);
}
