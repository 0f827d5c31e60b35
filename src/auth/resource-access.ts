import { Injectable } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { MemoryUserException, OperatorRequiredException } from './auth-errors';
import { type AuthFilters, parseAuthFilters } from './auth-filters';
import { isOthersMemories } from './memory-namespace';
import { currentPrincipal } from './tenant';

/** What the custom handlers answer when none of them applies to a request (or it has no custom-auth user). */
export const NOT_HANDLED = Symbol('no custom auth handler');

/** langgraph.json's resource handlers (langgraph-api/auth/custom-auth.ts registers them). */
export type CustomHandlers = (
  resource: string,
  action: string,
  value: Record<string, unknown>,
) => Promise<AuthFilters | undefined | typeof NOT_HANDLED>;

/** the built-in owner rule's filters (a mark outside the filter: a filter holds its keys and nothing else) */
const OWNER_RULE = new WeakSet<object>();

/** actions whose `value.metadata` is what a new resource gets: the built-in rule records its user as the owner */
const CREATES = new Set(['create', 'create_run']);

/**
 * Knowledge of the tenant (documents, contracts): every user of the tenant reads and searches it (the agents quote it
 * to everyone) and may add to it; only its uploader, an `admin` token or an API key deletes or replaces it.
 */
const KNOWLEDGE = new Set(['documents', 'contracts']);

/** an owner no row has: a filter that lets nothing through */
const NOBODY = '\u0000nobody';

/** a user's memories across sessions (the assistant's long-term memory): the user's own, or the operator's to name */
export const MEMORIES_RESOURCE = 'memories';

/** LangGraph's store (`/store`, and the namespaces of a graph's `config.store` are the same items) */
const STORE_RESOURCE = 'store';

/**
 * The assistant's memories of another user (`["memories", <their label>, …]`) are never a store request's: they are
 * recalled into that user's turns, so reading one leaks and writing one plants. 403 for a user without `admin`,
 * whatever the isolation or a handler says (a handler is asked after this); an operator (`admin`: an API key, an
 * admin token) reaches every user's. Other namespaces under `memories` (a graph's own) follow the usual rules.
 */
function refuseOthersMemories(value: Record<string, unknown>): void {
  const principal = currentPrincipal();
  if (!principal || principal.permissions.includes('admin') || !Array.isArray(value.namespace)) return;
  if (isOthersMemories(value.namespace as string[], principal.userId)) throw new MemoryUserException('other');
}

/** the resource of the tenant as a whole, whose actions (`truncate`) are the operator's alone */
export const TENANT_RESOURCE = 'tenant';

/** The filter of the built-in owner rule: `{ owner: userId }`, marked as the rule's. */
export function ownedBy(userId: string): AuthFilters {
  const filters = parseAuthFilters({ owner: userId });
  OWNER_RULE.add(filters);
  return filters;
}

/**
 * The owner the filter is the built-in rule of, else undefined. Where the rule is not the resource's metadata
 * (a store item's owner column) or has an exception (the built-in assistants are everyone's), the services ask.
 */
export function ownerRuleOf(filters: AuthFilters | undefined): string | undefined {
  return filters && OWNER_RULE.has(filters) ? (filters.owner as string) : undefined;
}

/**
 * Who may see and change what inside a tenant, for every read, search, count, update, delete, run, join and stream
 * of a thread (a v1 session), run, assistant, cron or store item, on the LangGraph API and REST v1 alike. The
 * answer is a filter on the resource (its metadata), applied by the resource's service; an invisible resource is
 * answered as a missing one (404). Tenant isolation is the services' own predicate and is never relaxed here.
 *
 * Precedence:
 * 1. langgraph.json's custom auth handler for `resource:action` (the most specific one), when one applies to a
 *    custom-auth user: its filter, its metadata on create, its refusal — it decides, sharing included
 *    (`{ team: "x" }` shares within the team; no filter, everything of the tenant).
 * 2. otherwise the built-in owner rule: what a user (a bearer token's, or the custom auth's) creates is stamped
 *    `owner: <user>` (over any owner the client sent); a user without `admin`, while `AUTH_USER_ISOLATION=owner`,
 *    sees only what it owns.
 * 3. otherwise (an API key, an `admin` token, `AUTH_USER_ISOLATION=tenant`, no authentication) the whole tenant.
 *
 * Two resources have rules of their own, taken before any handler (a handler can never widen them):
 * - `tenant:truncate` (`/internal/truncate`) needs `admin` (an API key, an admin token); anyone else gets 403.
 * - `memories` (`/v1/memories`) are one user's: the filter is `{ owner: <user> }`, the caller's own user; only an
 *   operator (`admin`: an API key, an admin token) may name another with `value.user_id` (anyone else gets 403), and a
 *   caller without a user (an API key) must name one (400). A handler that applies may refuse, never widen.
 * - `documents` and `contracts` are the tenant's shared knowledge: reads, searches and creates are the tenant's;
 *   a `delete` is confined to the uploader (`{ owner: <user> }`) unless the caller has `admin`. A handler that
 *   applies may narrow these further (its filter is matched against `{ owner }`), never widen them.
 */
@Injectable()
export class ResourceAccess {
  private handlers?: CustomHandlers;

  constructor(private readonly config: AppConfig) {}

  /** Installs langgraph.json's resource handlers (once, at start-up). */
  useHandlers(handlers: CustomHandlers): void {
    this.handlers = handlers;
  }

  /** The filter for `resource:action`; may change `value` (the metadata of a create). */
  async authorize(resource: string, action: string, value: Record<string, unknown>): Promise<AuthFilters | undefined> {
    if (resource === TENANT_RESOURCE) return this.operatorOnly(action);
    if (resource === STORE_RESOURCE) refuseOthersMemories(value);
    const handled = this.handlers ? await this.handlers(resource, action, value) : NOT_HANDLED;
    if (KNOWLEDGE.has(resource)) return this.knowledgeRule(action, handled);
    if (resource === MEMORIES_RESOURCE) return this.memoriesRule(value);
    return handled === NOT_HANDLED ? this.ownerRule(action, value) : handled;
  }

  /** The user the built-in owner rule confines the request to; undefined when it sees the whole tenant. */
  confinedUser(): string | undefined {
    const principal = currentPrincipal();
    if (!principal?.userId || principal.permissions.includes('admin')) return undefined;
    return this.config.tokens.userIsolation === 'owner' ? principal.userId : undefined;
  }

  /** An operator's action on the whole tenant: `admin` only (an API key, an admin token); fail closed otherwise. */
  private operatorOnly(action: string): undefined {
    if (!currentPrincipal()?.permissions.includes('admin')) throw new OperatorRequiredException(`${TENANT_RESOURCE}:${action}`);
    return undefined;
  }

  /** Memories: the user they belong to, as `{ owner }` — the caller's own, or the one an operator names. */
  private memoriesRule(value: Record<string, unknown>): AuthFilters {
    const principal = currentPrincipal();
    const named = typeof value.user_id === 'string' && value.user_id ? value.user_id : undefined;
    const operator = principal?.permissions.includes('admin') ?? false;
    if (named && named !== principal?.userId && !operator) throw new MemoryUserException('other');
    const owner = named ?? principal?.userId;
    if (!owner) throw new MemoryUserException('none');
    return parseAuthFilters({ owner });
  }

  /**
   * Shared knowledge: a delete is the uploader's (or an admin's); a handler's filter (which the service matches
   * against `{ owner }`) applies on top, so a handler narrows the rule and never widens it.
   */
  private knowledgeRule(action: string, handled: AuthFilters | undefined | typeof NOT_HANDLED): AuthFilters | undefined {
    const own = handled === NOT_HANDLED ? undefined : handled;
    const principal = currentPrincipal();
    if (action !== 'delete' || !principal || principal.permissions.includes('admin')) return own;
    // both must hold: a handler's own `owner` that is not the caller (or no user at all) lets nothing through
    const clash = own && 'owner' in own && own.owner !== principal.userId;
    return { ...(own ?? {}), owner: clash || !principal.userId ? NOBODY : principal.userId };
  }

  /**
   * What a user creates is its own (whatever the isolation, an admin's too); a confined user's update keeps it so
   * (it cannot hand a resource to another); a confined user sees what it owns.
   */
  private ownerRule(action: string, value: Record<string, unknown>): AuthFilters | undefined {
    const confined = this.confinedUser();
    const creator = CREATES.has(action) ? currentPrincipal()?.userId : undefined;
    const owner = creator ?? (action === 'update' ? confined : undefined);
    const metadata = value.metadata;
    if (owner && metadata && typeof metadata === 'object' && !Array.isArray(metadata)) (metadata as Record<string, unknown>).owner = owner;
    return confined ? ownedBy(confined) : undefined;
  }
}
