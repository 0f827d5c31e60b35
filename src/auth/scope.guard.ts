import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import type { AuthedRequest } from './auth.middleware';
import { InsufficientScopeException } from './auth-errors';
import type { Permission } from './principal';
import { isServiceController } from './tenant.guard';

/** POSTs that only read: searches and counts, a thread's history, an assistant's versions, the store's namespaces, a stream ticket. */
const READING_POST = /\/(search|count|history|versions|namespaces|stream\/ticket)$/;

/** The permission a request needs: `read` for GET/HEAD/OPTIONS and the reading POSTs, `write` for everything else. */
export function permissionFor(method: string, path: string): Permission {
  const m = method.toUpperCase();
  if (m === 'GET' || m === 'HEAD' || m === 'OPTIONS') return 'read';
  if (m === 'POST' && READING_POST.test(path.replace(/\/+$/, ''))) return 'read';
  return 'write';
}

/**
 * After the tenant guard: a route runs only when the principal's permissions (a token's scopes; an API key has
 * all) include what the request needs, else 403 `INSUFFICIENT_SCOPE`. This is the coarse read/write gate of the
 * route; who may act on which resource (owner, sharing, admin, `/internal/truncate`'s operator rule) is the one
 * policy's (auth/resource-access.ts), which the services ask. API keys are managed by the `api-keys` command.
 */
@Injectable()
export class ScopeGuard implements CanActivate {
  constructor(private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http' || !isServiceController(context.getClass())) return true;
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    if (!req.principal) return true; // an open path (health, console, public metrics): the tenant guard decided
    const needed = permissionFor(req.method, req.path);
    if (req.principal.permissions.includes(needed)) return true;
    throw new InsufficientScopeException(`${this.config.tokens.scopePrefix}${needed}`);
  }
}
