import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';

import { type AuthedRequest, isConsolePath, isHealthPath } from './auth.middleware';
import { ApiKeyRequiredException } from './auth-errors';

export { ApiKeyRequiredException } from './auth-errors';

/** The service's own controllers: in a host application (AgentOrchestratorModule) the host's routes are not ours to guard. */
const serviceControllers = new WeakSet<object>();

export function markServiceControllers(controllers: object[]): void {
  for (const c of controllers) serviceControllers.add(c);
}

export function isServiceController(controller: object): boolean {
  return serviceControllers.has(controller);
}

/**
 * The global guard: a route runs only for a request that authentication gave a tenant (the middleware
 * does, for every key it accepts or for tenant `default` when no keys are configured) — except /health/*,
 * the static console page, and /metrics or /docs when they are public.
 */
@Injectable()
export class TenantGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http' || !isServiceController(context.getClass())) return true;
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    if (req.tenantId || isHealthPath(req.path) || isConsolePath(req.path) || req.path === '/metrics') return true;
    throw new ApiKeyRequiredException();
  }
}

/** The request's tenant (controllers: `@Tenant() tenantId: string`). */
export const Tenant = createParamDecorator((_data: unknown, ctx: ExecutionContext): string => {
  const tenantId = ctx.switchToHttp().getRequest<AuthedRequest>().tenantId;
  if (!tenantId) throw new ApiKeyRequiredException();
  return tenantId;
});
