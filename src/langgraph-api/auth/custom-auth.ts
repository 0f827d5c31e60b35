import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { Request as ExpressRequest } from 'express';

import { AgentRegistry } from '../../agents/agent-registry.service';
import { type AuthHandlerArgs, type CustomAuthHandlers, loadCustomAuth } from '../../agents/custom-graphs/auth-loader';
import { readLanggraphConfig } from '../../agents/custom-graphs/langgraph-config';
import { AuthFilterError, type AuthFilters, parseAuthFilters } from '../../auth/auth-filters';
import type { CustomAuthenticator, CustomIdentity } from '../../auth/credentials';
import { customAuthGuards } from '../../auth/open-paths';
import { type Permission, type RequestPrincipal } from '../../auth/principal';
import { requestUrl } from '../../auth/request-edge';
import { NOT_HANDLED, ResourceAccess } from '../../auth/resource-access';
import { DEFAULT_TENANT, TENANT_ID_PATTERN } from '../../auth/tenant';
import { AppConfig } from '../../config/app-config';
import { DomainException } from '../../core/errors';
import { type CustomAuthUser, customAuthUser, withCustomAuthUser } from './auth-context';
import { asRefusal, AuthFilterRefusedException, CustomAuthException, InvalidAuthResultException } from './custom-auth-errors';

/** what a custom-auth user may do in the service's terms: the LangGraph API's reads and writes, never key management */
const CUSTOM_USER_PERMISSIONS: readonly Permission[] = ['read', 'write'];

/**
 * The custom auth of langgraph.json (`"auth": {"path": "./auth.mts:auth"}`), as LangGraph Platform runs it:
 * `authenticate` decides who a LangGraph API request is (its refusals, `HTTPException`s, reach the client with
 * their status and headers), and the resource handlers (`on("threads:create")`, `on("*")`, …) may refuse an
 * action or return a filter on the resource's metadata, which the resource's service applies.
 *
 * Who a request is, is decided in one place (auth/credentials.ts `resolvePrincipal`), which calls this class as
 * its CustomAuthenticator: a service API key in `x-api-key` (when keys are configured) must verify and is then the
 * tenant's operator — no handler runs for it; every other request to the LangGraph API and REST v1 that
 * open-paths.ts does not leave open goes through `authenticate` alone, which replaces the service's bearer tokens
 * there (as the platform replaces its own auth). The user's tenant is its `tenant_id` field when it returns one,
 * else `default`. On REST v1 a session is a `threads` resource (its reads `threads:read`, a chat turn
 * `threads:create_run`, its deletion `threads:delete`). An error `authenticate` throws is logged and answered as
 * a bare 401 (its message may hold secrets); an `HTTPException` keeps its status, message and headers.
 *
 * Where no handler applies, the built-in owner rule decides (auth/resource-access.ts, which has the precedence).
 */
@Injectable()
export class LanggraphCustomAuth implements OnModuleInit, CustomAuthenticator {
  private readonly logger = new Logger(LanggraphCustomAuth.name);
  private handlers?: CustomAuthHandlers;

  // the registry loads the graphs first (and applies langgraph.json's env) before the auth module loads
  constructor(
    private readonly config: AppConfig,
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

  /** Whether `authenticate` decides who sends this request (`path`: below the service's mount point). */
  decides(method: string, path: string): boolean {
    return this.handlers?.authenticate !== undefined && customAuthGuards(method, path);
  }

  /** The request's identity from `authenticate`, as the one credential resolution admits it; throws the refusal. */
  async identify(req: ExpressRequest): Promise<CustomIdentity> {
    const user = await this.authenticate(req);
    const principal: RequestPrincipal = {
      tenantId: user.tenantId,
      userId: user.identity,
      permissions: CUSTOM_USER_PERMISSIONS,
      claims: user.fields,
    };
    return { principal, enter: (fn) => withCustomAuthUser(user, fn) };
  }

  /** The user a stream ticket was issued to (auth/credentials.ts `byTicket`): the same fields, the same handlers. */
  resume(principal: RequestPrincipal): CustomIdentity {
    const fields = principal.claims ?? {};
    const permissions = Array.isArray(fields.permissions) ? fields.permissions.filter((p): p is string => typeof p === 'string') : [];
    const user: CustomAuthUser = { identity: principal.userId ?? String(fields.identity), permissions, fields };
    return { principal, enter: (fn) => withCustomAuthUser(user, fn) };
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
    return this.filterOf(key, result);
  }

  /**
   * A handler's result as the filter the services apply, read once (auth-filters.ts `parseAuthFilters`). One the
   * service cannot apply exactly — a reserved key, an unknown operator, a nested object, a Date — is logged with
   * the handler's key and answered as a 500 without details: never as a wider view, never with the reason.
   */
  private filterOf(key: string, result: unknown): AuthFilters {
    try {
      return parseAuthFilters(result);
    } catch (err) {
      const reason = err instanceof AuthFilterError ? err.message : 'the filter could not be read';
      this.logger.error({
        msg: 'custom auth: a handler returned a filter the service cannot apply; request refused',
        handler: key,
        reason,
      });
      throw new AuthFilterRefusedException();
    }
  }

  private async authenticate(req: ExpressRequest): Promise<CustomAuthUser & { tenantId: string }> {
    const request = requestOf(req);
    let result: unknown;
    try {
      result = await this.handlers!.authenticate!(request);
    } catch (err) {
      throw this.refusalOf(err);
    }
    return normalized(result);
  }

  /**
   * What the client gets when `authenticate` throws: a deliberate refusal (`HTTPException`: its status, message and
   * headers, as the platform answers it) as it is; anything else is logged here and answered as a bare 401 — its
   * message may hold secrets (a token, a key, an upstream's answer).
   */
  private refusalOf(err: unknown): DomainException {
    const refusal = asRefusal(err);
    if (refusal instanceof DomainException) return refusal;
    const e = err as { name?: unknown; message?: unknown } | null;
    this.logger.warn({
      msg: 'the custom auth authenticate threw: answered 401',
      error: typeof e?.name === 'string' ? e.name : typeof err,
      reason: typeof e?.message === 'string' ? e.message.slice(0, 500) : String(err).slice(0, 500),
    });
    return new CustomAuthException(401, 'Unauthorized');
  }
}

/** the request as the handler reads it (a fetch Request: method, URL, headers; the body stays the API's) */
function requestOf(req: ExpressRequest): Request {
  const url = requestUrl(req);
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
