import { Injectable } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { type AuthFilters, parseAuthFilters } from './auth-filters';
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
    const handled = this.handlers ? await this.handlers(resource, action, value) : NOT_HANDLED;
    return handled === NOT_HANDLED ? this.ownerRule(action, value) : handled;
  }

  /** The user the built-in owner rule confines the request to; undefined when it sees the whole tenant. */
  confinedUser(): string | undefined {
    const principal = currentPrincipal();
    if (!principal?.userId || principal.permissions.includes('admin')) return undefined;
    return this.config.tokens.userIsolation === 'owner' ? principal.userId : undefined;
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
