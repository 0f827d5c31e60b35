import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from 'express';

import { AgentRegistry } from '../../agents/agent-registry.service';
import { type AuthHandlerArgs, type CustomAuthHandlers, loadCustomAuth } from '../../agents/custom-graphs/auth-loader';
import { readLanggraphConfig } from '../../agents/custom-graphs/langgraph-config';
import { ApiKeyAuth } from '../../auth/api-key-auth.service';
import type { AuthedRequest, Refuse } from '../../auth/auth.middleware';
import type { AuthFilters } from '../../auth/auth-filters';
import { type Permission } from '../../auth/principal';
import { NOT_HANDLED, ResourceAccess } from '../../auth/resource-access';
import { DEFAULT_TENANT, TENANT_ID_PATTERN } from '../../auth/tenant';
import { AppConfig } from '../../config/app-config';
import { DomainException } from '../../core/errors';
import { type CustomAuthUser, customAuthUser, withCustomAuthUser } from './auth-context';
import { asRefusal, CustomAuthException, InvalidAuthResultException } from './custom-auth-errors';

/** what a custom-auth user may do in the service's terms: the LangGraph API's reads and writes, never key management */
const CUSTOM_USER_PERMISSIONS: readonly Permission[] = ['read', 'write'];

/** Paths the custom auth does not guard: liveness, the console, the docs and metrics, `/info` (as the platform). */
const NOT_GUARDED = /^\/(health|ok|console|docs|docs-[^/]*|metrics|info|favicon\.ico)(\/|$)/;

/** Whether the custom auth guards a request: not the paths above, nor GETs of the graphs' UI files (as the platform). */
function guarded(method: string, path: string): boolean {
  return !NOT_GUARDED.test(path) && !(method === 'GET' && /^\/ui(\/|$)/.test(path));
}

/**
 * The custom auth of langgraph.json (`"auth": {"path": "./auth.mts:auth"}`), as LangGraph Platform runs it:
 * `authenticate` decides who a LangGraph API request is (its refusals, `HTTPException`s, reach the client with
 * their status and headers), and the resource handlers (`on("threads:create")`, `on("*")`, …) may refuse an
 * action or return a filter on the resource's metadata, which the resource's service applies.
 *
 * Order: a valid API key of the service (`x-api-key`, when keys are configured) is the tenant's operator and is
 * checked first — no handler runs for it; every other request to the LangGraph API and REST v1 goes through
 * `authenticate`, which replaces the service's bearer tokens there (as the platform replaces its own auth). The
 * user's tenant is its `tenant_id` field when it returns one, else `default`. On REST v1 a session is a `threads`
 * resource (its reads `threads:read`, a chat turn `threads:create_run`, its deletion `threads:delete`).
 *
 * Where no handler applies, the built-in owner rule decides (auth/resource-access.ts, which has the precedence).
 */
@Injectable()
export class LanggraphCustomAuth implements OnModuleInit {
  private readonly logger = new Logger(LanggraphCustomAuth.name);
  private handlers?: CustomAuthHandlers;

  // the registry loads the graphs first (and applies langgraph.json's env) before the auth module loads
  constructor(
    private readonly config: AppConfig,
    private readonly keys: ApiKeyAuth,
    _graphsFirst: AgentRegistry,
    private readonly access: ResourceAccess,
  ) {}

  onModuleInit(): void {
    if (!this.config.langgraphConfig) return;
    const config = readLanggraphConfig(this.config.langgraphConfig);
    this.handlers = loadCustomAuth(config);
    if (!this.handlers) return;
    this.logger.log({ msg: 'langgraph.json custom auth loaded', auth: config.auth?.spec });
    this.access.useHandlers((resource, action, value) => this.handle(resource, action, value));
  }

  get configured(): boolean {
    return this.handlers !== undefined;
  }

  /**
   * The Express middleware, before the service's own authentication (app.factory.ts; the embeddable module's HTTP
   * API, whose routes sit under `prefix`).
   */
  middleware(refuse: Refuse, prefix = '') {
    const base = prefix ? `/${prefix}` : '';
    return (req: AuthedRequest, res: ExpressResponse, next: NextFunction): void => {
      const path = base && req.path.startsWith(`${base}/`) ? req.path.slice(base.length) : req.path;
      if (!this.handlers?.authenticate || !guarded(req.method, path)) return next();
      this.serviceKeyFirst(req)
        .then(async (byKey) => {
          if (byKey) return next();
          const user = await this.authenticate(req);
          admit(req, user);
          withCustomAuthUser(user, next);
        })
        .catch((err: unknown) => {
          const refusal = asRefusal(err);
          refuse(refusal instanceof DomainException ? refusal : new InvalidAuthResultException((err as Error).message), req, res);
        });
    };
  }

  /**
   * The filter for `resource:action` (auth/resource-access.ts): the custom handler's when one applies, else the
   * built-in owner rule's. Either may change `value` (the metadata of a create); undefined: the whole tenant.
   */
  authorize(resource: string, action: string, value: Record<string, unknown>): Promise<AuthFilters | undefined> {
    return this.access.authorize(resource, action, value);
  }

  /**
   * The filter of the resource handler for `resource:action` (the most specific of `resource:action`, `resource`,
   * `*:action`, `*`), which may also change `value` (the metadata of a create); NOT_HANDLED when no handler or no
   * custom-auth user. A handler's `false` is a 403, its `HTTPException` the refusal it names.
   */
  private async handle(
    resource: string,
    action: string,
    value: Record<string, unknown>,
  ): Promise<AuthFilters | undefined | typeof NOT_HANDLED> {
    const user = customAuthUser();
    const callbacks = this.handlers?.callbacks;
    if (!user || !callbacks) return NOT_HANDLED;
    const key = [`${resource}:${action}`, resource, `*:${action}`, '*'].find((k) => callbacks[k]);
    if (!key) return NOT_HANDLED;
    const args: AuthHandlerArgs = {
      event: `${resource}:${action}`,
      resource,
      action,
      value,
      user: user.fields,
      permissions: user.permissions,
    };
    let result: unknown;
    try {
      result = await callbacks[key](args);
    } catch (err) {
      throw asRefusal(err);
    }
    if (result === undefined || result === null || result === true) return undefined;
    if (result === false) throw new CustomAuthException(403, `the auth handler of "${key}" refused`, undefined, '');
    if (typeof result !== 'object') throw new InvalidAuthResultException(`the auth handler of "${key}" returned a ${typeof result}`);
    return result as AuthFilters;
  }

  private async serviceKeyFirst(req: ExpressRequest): Promise<boolean> {
    return typeof req.headers['x-api-key'] === 'string' && (await this.keys.required());
  }

  private async authenticate(req: ExpressRequest): Promise<CustomAuthUser & { tenantId: string }> {
    const result = await this.handlers!.authenticate!(requestOf(req));
    return normalized(result);
  }
}

function admit(req: AuthedRequest, user: CustomAuthUser & { tenantId: string }): void {
  req.principal = { tenantId: user.tenantId, userId: user.identity, permissions: CUSTOM_USER_PERMISSIONS, claims: user.fields };
  req.tenantId = user.tenantId;
}

/** the request as the handler reads it (a fetch Request: method, URL, headers; the body stays the API's) */
function requestOf(req: ExpressRequest): Request {
  const url = new URL(req.originalUrl, `${req.protocol}://${req.headers.host ?? 'localhost'}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
  }
  return new Request(url, { method: req.method, headers });
}

/** A string is an identity; an object needs a string `identity` (as the platform normalizes it). */
function normalized(result: unknown): CustomAuthUser & { tenantId: string } {
  const fields: Record<string, unknown> =
    typeof result === 'string' ? { identity: result } : result && typeof result === 'object' ? { ...(result as object) } : {};
  const identity = fields.identity;
  if (typeof identity !== 'string') {
    throw new InvalidAuthResultException('the custom auth returned neither a string nor an object with a string `identity`');
  }
  const permissions = Array.isArray(fields.permissions) ? fields.permissions.filter((p): p is string => typeof p === 'string') : [];
  const tenant = fields.tenant_id;
  if (tenant !== undefined && (typeof tenant !== 'string' || !TENANT_ID_PATTERN.test(tenant))) {
    throw new InvalidAuthResultException('the custom auth returned a `tenant_id` that is not a tenant id');
  }
  return {
    identity,
    permissions,
    tenantId: (tenant as string | undefined) ?? DEFAULT_TENANT,
    fields: { ...fields, permissions, display_name: fields.display_name ?? identity, is_authenticated: fields.is_authenticated ?? true },
  };
}
