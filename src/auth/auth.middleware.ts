import type { NextFunction, Request, Response } from 'express';

import type { AppConfig } from '../config/app-config';
import { DomainException } from '../core/errors';
import type { ApiKeyAuth } from './api-key-auth.service';
import { KeysUnavailableException } from './auth-errors';
import { type CustomAuthenticator, resolvePrincipal } from './credentials';
import { isOpenPath } from './open-paths';
import type { RequestPrincipal } from './principal';
import type { StreamTickets } from './stream-ticket';
import { runAsPrincipal } from './tenant';
import type { TokenAuth } from './token-auth.service';

/** A request after authentication: its tenant, the id of the key it used, and its principal. */
export interface AuthedRequest extends Request {
  tenantId?: string;
  apiKeyId?: string;
  principal?: RequestPrincipal;
}

/**
 * How a refusal is answered: the exception filter's `answer` (the app and the embeddable module pass it: inside a
 * host application the filter is scoped to the service's controllers, so an error handed to `next` would reach the
 * host's handler instead); without it, `next(err)`.
 */
export type Refuse = (err: DomainException, req: Request, res: Response) => void;

/** What the authentication middleware works with besides the keys and the settings. */
export interface AuthOptions {
  tokens?: TokenAuth;
  refuse?: Refuse;
  /** langgraph.json's custom auth, which decides the requests it guards (LanggraphCustomAuth) */
  custom?: CustomAuthenticator;
  /** stream tickets, which authenticate the thread event protocol's WebSocket upgrade (auth/stream-ticket.ts) */
  tickets?: StreamTickets;
  /** the path the service's routes are mounted under in a host app (the embeddable module), without slashes */
  prefix?: string;
}

/**
 * The one authentication in front of everything (routes, Swagger UI, metrics, the `http` app), after the
 * request edge (request-edge.ts: canonical path and host) and before any body is read. The open paths
 * (open-paths.ts) read no credential; every other request gets exactly one principal from `resolvePrincipal`
 * (credentials.ts) — a key, a token user, or the custom auth's identity — or is refused (401 with a reason code,
 * 503 when keys or token keys cannot be checked, through `refuse`). The rest of the request runs as that
 * principal (auth/tenant.ts `currentPrincipal`).
 */
export function authMiddleware(keys: ApiKeyAuth, config: AppConfig, options: AuthOptions = {}) {
  const { tokens, refuse, custom, tickets } = options;
  const base = options.prefix ? `/${options.prefix}` : '';
  return (req: AuthedRequest, res: Response, next: NextFunction): void => {
    // open paths (liveness above all: it never waits for the database) are not authenticated at all
    if (isOpenPath(req.path, config.security)) return next();
    const path = base && req.path.startsWith(`${base}/`) ? req.path.slice(base.length) : req.path;
    resolvePrincipal({ keys, tokens, custom, tickets }, req, path)
      .then(({ principal, enter }) => {
        admit(req, principal);
        const proceed = () => runAsPrincipal(principal, next);
        if (enter) enter(proceed);
        else proceed();
      })
      .catch((err: unknown) => {
        const refusal = err instanceof DomainException ? err : new KeysUnavailableException();
        if (refuse) refuse(refusal, req, res);
        else next(refusal);
      });
  };
}

function admit(req: AuthedRequest, principal: RequestPrincipal): void {
  req.principal = principal;
  req.tenantId = principal.tenantId;
  if (principal.keyId) req.apiKeyId = principal.keyId;
}
