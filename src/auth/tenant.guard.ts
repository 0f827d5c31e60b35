import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';

import type { AuthedRequest } from './auth.middleware';
import { ApiKeyRequiredException } from './auth-errors';
import { isOpenPath } from './open-paths';

/** every path of the open list, whatever METRICS_PUBLIC / DOCS_PUBLIC say (the middleware applied them) */
const EVERY_OPEN_PATH = { metricsPublic: true, docsPublic: true };

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
 * does, for every key it accepts or for tenant `default` when no keys are configured) — except the open paths
 * (open-paths.ts). Which of them are open under the current settings (METRICS_PUBLIC, DOCS_PUBLIC) the
 * middleware has decided before: here every path of the list may pass without a tenant, none other.
 */
@Injectable()
export class TenantGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http' || !isServiceController(context.getClass())) return true;
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    if (req.tenantId || isOpenPath(req.path, EVERY_OPEN_PATH)) return true;
    throw new ApiKeyRequiredException();
  }
}

/** The request's tenant (controllers: `@Tenant() tenantId: string`). */
export const Tenant = createParamDecorator((_data: unknown, ctx: ExecutionContext): string => {
  const tenantId = ctx.switchToHttp().getRequest<AuthedRequest>().tenantId;
  if (!tenantId) throw new ApiKeyRequiredException();
  return tenantId;
});
