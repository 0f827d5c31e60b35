import type { NextFunction, Request, Response } from 'express';

import type { AppConfig } from '../config/app-config';
import { DomainException } from '../core/errors';
import { ApiKeyAuth, presentedKey } from './api-key-auth.service';
import { ApiKeyRequiredException, KeysUnavailableException } from './auth-errors';
import { ALL_PERMISSIONS, type RequestPrincipal } from './principal';
import { DEFAULT_TENANT, runAsPrincipal } from './tenant';
import { looksLikeJwt, type TokenAuth } from './token-auth.service';

/** A request after authentication: its tenant, the id of the key it used, and its principal. */
export interface AuthedRequest extends Request {
  tenantId?: string;
  apiKeyId?: string;
  principal?: RequestPrincipal;
}

/** liveness, open: `/health`, `/health/*`, and LangGraph Server's `GET /ok` */
export function isHealthPath(path: string): boolean {
  return path === '/health' || path.startsWith('/health/') || path === '/ok';
}

/** The console page (and the favicon) are static and public: the page asks for the key and sends it with each API call. */
export function isConsolePath(path: string): boolean {
  return path === '/console' || path.startsWith('/console/') || path === '/favicon.ico';
}

function isOpenPath(path: string, config: AppConfig): boolean {
  if (isHealthPath(path) || isConsolePath(path)) return true;
  if (config.security.metricsPublic && (path === '/metrics' || path.startsWith('/metrics/'))) return true;
  return config.security.docsPublic && (path === '/docs' || path.startsWith('/docs/') || path.startsWith('/docs-'));
}

/**
 * How a refusal is answered: the exception filter's `answer` (the app and the embeddable module pass it: inside a
 * host application the filter is scoped to the service's controllers, so an error handed to `next` would reach the
 * host's handler instead); without it, `next(err)`.
 */
export type Refuse = (err: DomainException, req: Request, res: Response) => void;

/**
 * Authentication in front of everything (routes, Swagger UI, metrics), before any body is read: with keys or
 * tokens configured, every path but /health/* (and /metrics, /docs when made public) needs a valid key or
 * token; its principal (tenant, user, permissions) is put on the request. Without either every request is
 * tenant `default`. The rest of the request runs as its principal (auth/tenant.ts `currentPrincipal`). A refusal (401 with a reason code, 503 when keys cannot be checked) is answered by `refuse`.
 */
export function authMiddleware(auth: ApiKeyAuth, config: AppConfig, tokens?: TokenAuth, refuse?: Refuse) {
  return (req: AuthedRequest, res: Response, next: NextFunction): void => {
    // /health never waits for the database (liveness must not depend on it), nor do other open paths without a key
    if (isHealthPath(req.path) || (isOpenPath(req.path, config) && !presentedKey(req.headers))) return next();
    // langgraph.json's custom auth (before this one) has admitted the request
    if (req.principal) return runAsPrincipal(req.principal, next);
    authenticate(auth, tokens, req)
      .then((principal) => {
        if (!principal) return next();
        admit(req, principal);
        runAsPrincipal(principal, next);
      })
      .catch((err: unknown) => {
        // a refused key or token on an open path is the same as none
        if (isOpenPath(req.path, config)) return next();
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

/** The principal of the request; null when nothing is required; throws the refusal. */
async function authenticate(auth: ApiKeyAuth, tokens: TokenAuth | undefined, req: AuthedRequest): Promise<RequestPrincipal | null> {
  const presented = presentedKey(req.headers);
  const tokensOn = tokens?.enabled() ?? false;
  // with tokens on, a bearer credential shaped like a JWT is a token (API keys have no dots)
  if (tokensOn && presented && isBearer(req) && looksLikeJwt(presented)) return tokens!.verify(presented);
  if (!tokensOn && !(await auth.required())) return { tenantId: DEFAULT_TENANT, permissions: ALL_PERMISSIONS };
  const key = await auth.authenticate(presented);
  if (!key) throw new ApiKeyRequiredException(tokensOn);
  return { tenantId: key.tenantId, keyId: key.keyId, permissions: ALL_PERMISSIONS };
}

function isBearer(req: Request): boolean {
  return typeof req.headers.authorization === 'string' && /^Bearer\s/i.test(req.headers.authorization);
}
