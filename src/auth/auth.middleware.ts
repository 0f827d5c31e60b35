import type { NextFunction, Request, Response } from 'express';

import type { AppConfig } from '../config/app-config';
import { ApiKeyAuth, presentedKey } from './api-key-auth.service';
import { DEFAULT_TENANT } from './tenant';

/** A request after authentication: its tenant and the id of the key it used. */
export interface AuthedRequest extends Request {
  tenantId?: string;
  apiKeyId?: string;
}

export function isHealthPath(path: string): boolean {
  return path === '/health' || path.startsWith('/health/');
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

function unauthorized(res: Response): void {
  res
    .status(401)
    .set('WWW-Authenticate', 'Bearer')
    .json({ error: { code: 'UNAUTHORIZED', message: 'a valid API key is required (Authorization: Bearer <key> or x-api-key)' } });
}

/**
 * Authentication in front of everything (routes, Swagger UI, metrics), before any body is read: with keys
 * configured, every path but /health/* (and /metrics, /docs when made public) needs a valid key; the key's
 * tenant is put on the request. Without keys every request is tenant `default`.
 */
export function authMiddleware(auth: ApiKeyAuth, config: AppConfig) {
  return (req: AuthedRequest, res: Response, next: NextFunction): void => {
    // /health never waits for the database (liveness must not depend on it), nor do other open paths without a key
    if (isHealthPath(req.path) || (isOpenPath(req.path, config) && !presentedKey(req.headers))) return next();
    authenticate(auth, config, req)
      .then((outcome) => (outcome === 'denied' ? unauthorized(res) : next()))
      .catch(() => {
        res.status(503).json({ error: { code: 'DATABASE_UNAVAILABLE', message: 'keys cannot be checked right now; try again shortly' } });
      });
  };
}

async function authenticate(auth: ApiKeyAuth, config: AppConfig, req: AuthedRequest): Promise<'ok' | 'denied'> {
  if (!(await auth.required())) {
    req.tenantId = DEFAULT_TENANT;
    return 'ok';
  }
  const principal = await auth.authenticate(presentedKey(req.headers));
  if (principal) {
    req.tenantId = principal.tenantId;
    req.apiKeyId = principal.keyId;
    return 'ok';
  }
  return isOpenPath(req.path, config) ? 'ok' : 'denied';
}
