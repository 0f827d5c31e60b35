import type { Item } from '@langchain/langgraph-checkpoint';
import { Inject, Injectable } from '@nestjs/common';

import { isOthersMemories } from '../../auth/memory-namespace';
import { ownerRuleOf } from '../../auth/resource-access';
import { currentPrincipal, currentUser } from '../../auth/tenant';
import { AppConfig } from '../../config/app-config';
import { DomainException } from '../../core/errors';
import type { ReadWithRefresh, SemanticStore } from '../../database/store/semantic-store';
import { LANGGRAPH_STORE } from '../../database/store/store.module';
import { refKey, StoreOwners } from '../../database/store/store-owners';
import { BAD_LABEL, tenantLabel } from '../../database/store/tenant-store';
import { LanggraphCustomAuth } from '../auth/custom-auth';
import { InvalidRequestException, LimitExceededException } from '../errors';
import { itemNotFound, notAuthorized, scanAuthorized, storeItemPasses } from './store-auth';
import { checkStoreFilter, comparesNumbers } from './store-filter';
import { ownedNamespaces } from './store-namespaces';

export { tenantLabel } from '../../database/store/tenant-store';

/**
 * The caller's user when it has no `admin` (an API key and an admin token reach every user's memories): what a
 * search or namespace listing leaves out of other users' memories, whatever the isolation (auth/memory-namespace.ts).
 */
function userOutsideMemories(): string | undefined {
  const principal = currentPrincipal();
  return principal?.userId && !principal.permissions.includes('admin') ? principal.userId : undefined;
}

function checkNamespace(namespace: string[], what: string, allowEmpty: boolean): void {
  if (!allowEmpty && namespace.length === 0) throw new InvalidRequestException(`${what} must have at least one label`);
  for (const label of namespace) {
    if (!label || BAD_LABEL.test(label)) {
      throw new InvalidRequestException(
        `${what} labels cannot be empty or contain '.', ':', '%', '_' or '\\'; got ${JSON.stringify(label).slice(0, 80)}`,
      );
    }
  }
}

export interface WireItem {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  score?: number;
}

/** Namespaces read to truncate them to `max_depth` before paging. */
const NAMESPACE_SCAN_CAP = 10_000;

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

/**
 * The LangGraph API's `/store`, per tenant: every namespace starts with the tenant's hidden label. The custom auth's
 * `store` handlers (langgraph.json `auth`) may change a request's namespace and key and return a filter on the
 * item (its value's fields, `namespace`, `key`): an item it hides is answered as missing, a write outside it 403.
 * Under the built-in owner rule (auth/resource-access.ts) a user sees the items it put (StoreOwners), as missing
 * another's.
 */
@Injectable()
export class StoreService {
  constructor(
    @Inject(LANGGRAPH_STORE) readonly store: SemanticStore,
    private readonly config: AppConfig,
    private readonly auth: LanggraphCustomAuth,
    private readonly owners: StoreOwners,
  ) {}

  async put(
    tenantId: string,
    namespace: string[],
    key: string,
    value: Record<string, unknown>,
    index?: false | string[] | null,
    ttl?: number | null,
  ) {
    checkNamespace(namespace, 'namespace', false);
    const asked = { namespace, key, value };
    const filters = await this.auth.authorize('store', 'put', asked);
    const owner = ownerRuleOf(filters);
    checkNamespace(asked.namespace, 'namespace', false);
    const ref = { namespace: [tenantLabel(tenantId), ...asked.namespace], key: asked.key };
    const existing = this.wire(await this.store.get(ref.namespace, ref.key));
    if (owner) {
      if (existing && (await this.owners.ownerOf(ref)) !== owner) throw itemNotFound();
    } else if (filters) {
      if (existing && !storeItemPasses(filters, existing.namespace, existing.key, existing.value)) throw itemNotFound();
      if (!storeItemPasses(filters, asked.namespace, asked.key, asked.value)) throw notAuthorized();
    }
    this.checkSizes(asked.namespace, asked.key, asked.value);
    await this.store.put(ref.namespace, ref.key, asked.value, index ?? undefined, ttl ? { ttl } : undefined);
    // a new item is its user's (an API key's is the operator's); an existing one keeps its owner
    if (!existing) await this.owners.record(ref, currentUser());
  }

  /** The item; `refreshTtl`: whether the read renews its TTL (undefined: `store.ttl.refresh_on_read`). */
  async get(tenantId: string, namespace: string[], key: string, refreshTtl?: boolean): Promise<WireItem | null> {
    checkNamespace(namespace, 'namespace', true);
    const asked = { namespace, key };
    const filters = await this.auth.authorize('store', 'get', asked);
    const ref = { namespace: [tenantLabel(tenantId), ...asked.namespace], key: asked.key };
    const read: ReadWithRefresh = { ...ref, ...(refreshTtl !== undefined ? { refreshTtl } : {}) };
    const [found] = (await this.store.batch([read])) as [Item | null];
    const item = this.wire(found);
    if (item && !(await this.passes(filters, ref, item))) throw itemNotFound();
    return item;
  }

  /** Whether the filter lets the item through: the owner rule's by its owner, a custom handler's by its fields. */
  private async passes(
    filters: Record<string, unknown> | undefined,
    ref: { namespace: string[]; key: string },
    item: WireItem,
  ): Promise<boolean> {
    const owner = ownerRuleOf(filters);
    if (owner) return (await this.owners.ownerOf(ref)) === owner;
    return storeItemPasses(filters, item.namespace, item.key, item.value);
  }

  async delete(tenantId: string, namespace: string[], key: string): Promise<void> {
    checkNamespace(namespace, 'namespace', true);
    const asked = { namespace, key };
    const filters = await this.auth.authorize('store', 'delete', asked);
    const ref = { namespace: [tenantLabel(tenantId), ...asked.namespace], key: asked.key };
    if (filters) {
      const existing = this.wire(await this.store.get(ref.namespace, ref.key));
      if (existing && !(await this.passes(filters, ref, existing))) throw itemNotFound();
      if (!existing && !ownerRuleOf(filters) && !storeItemPasses(filters, asked.namespace, asked.key)) throw notAuthorized();
    }
    await this.store.delete(ref.namespace, ref.key);
    await this.owners.forget(ref);
  }

  async search(
    tenantId: string,
    prefix: string[],
    q: { filter?: Record<string, unknown> | null; limit: number; offset: number; query?: string | null; refresh_ttl?: boolean | null },
  ): Promise<WireItem[]> {
    checkNamespace(prefix, 'namespace_prefix', true);
    checkStoreFilter(q.filter);
    const asked = { namespace: prefix, filter: q.filter, limit: q.limit, offset: q.offset, query: q.query };
    const filters = await this.auth.authorize('store', 'search', asked);
    const page = (limit: number, offset: number) => this.searchPage(tenantId, asked.namespace, { ...q, limit, offset });
    const user = userOutsideMemories();
    if (!filters && !user) return page(q.limit, q.offset);
    const owner = ownerRuleOf(filters);
    if (!owner) {
      const passes = (i: WireItem) => !isOthersMemories(i.namespace, user) && storeItemPasses(filters, i.namespace, i.key, i.value);
      return scanAuthorized(page, passes, q);
    }
    // the owner rule: each page's items with their owners, read in one query
    const label = tenantLabel(tenantId);
    const withOwners = async (limit: number, offset: number) => {
      const items = await page(limit, offset);
      const owners = await this.owners.ownersOf(items.map((i) => ({ namespace: [label, ...i.namespace], key: i.key })));
      return items.map((item) => ({ item, owner: owners.get(refKey({ namespace: [label, ...item.namespace], key: item.key })) }));
    };
    return (await scanAuthorized(withOwners, (i) => i.owner === owner, q)).map((i) => i.item);
  }

  private async searchPage(
    tenantId: string,
    prefix: string[],
    q: { filter?: Record<string, unknown> | null; limit: number; offset: number; query?: string | null; refresh_ttl?: boolean | null },
  ): Promise<WireItem[]> {
    const search: ReadWithRefresh = {
      namespacePrefix: [tenantLabel(tenantId), ...prefix],
      filter: q.filter ?? undefined,
      limit: q.limit,
      offset: q.offset,
      query: q.query ?? undefined,
      ...(q.refresh_ttl != null ? { refreshTtl: q.refresh_ttl } : {}),
    };
    const items = await this.store
      .batch([search])
      .then(([found]) => found as Array<Item & { score?: number }>)
      .catch((err: unknown) => {
        // a numeric comparison met a stored value that is not a number (Postgres: invalid_text_representation)
        if ((err as { code?: string }).code === '22P02' && comparesNumbers(q.filter)) {
          throw new DomainException(
            'STORE_FILTER_TYPE_MISMATCH',
            'filter: $gt/$gte/$lt/$lte compare numbers, and an item under this namespace_prefix holds a value that is not a number in a compared field',
            422,
          );
        }
        throw err;
      });
    return items.map((i) => this.wire(i)!);
  }

  async namespaces(
    tenantId: string,
    q: { prefix?: string[] | null; suffix?: string[] | null; max_depth?: number | null; limit: number; offset: number },
  ): Promise<string[][]> {
    if (q.prefix) checkNamespace(q.prefix, 'prefix', true);
    if (q.suffix) checkNamespace(q.suffix, 'suffix', true);
    const filters = await this.auth.authorize('store', 'list_namespaces', {
      namespace: q.prefix ?? [],
      suffix: q.suffix,
      max_depth: q.max_depth,
    });
    const user = userOutsideMemories();
    if (!filters && !user) return this.namespacePage(tenantId, q);
    const owner = ownerRuleOf(filters);
    if (owner) return ownedNamespaces(await this.owners.namespacesOf(tenantLabel(tenantId), owner), q);
    // the namespaces the filter lets through (as the platform matches them: by `namespace` alone), then the page
    const all = await this.namespacePage(tenantId, { ...q, limit: NAMESPACE_SCAN_CAP, offset: 0 });
    return all.filter((ns) => !isOthersMemories(ns, user) && storeItemPasses(filters, ns)).slice(q.offset, q.offset + q.limit);
  }

  private async namespacePage(
    tenantId: string,
    q: { prefix?: string[] | null; suffix?: string[] | null; max_depth?: number | null; limit: number; offset: number },
  ): Promise<string[][]> {
    const prefix = [tenantLabel(tenantId), ...(q.prefix ?? [])];
    const suffix = q.suffix?.length ? q.suffix : undefined;
    if (!q.max_depth) {
      const found = await this.store.listNamespaces({ prefix, suffix, limit: q.limit, offset: q.offset });
      return found.map((ns) => ns.slice(1));
    }
    // LangGraph truncates namespaces to max_depth (and dedupes); PostgresStore drops the deeper ones instead
    const all = await this.store.listNamespaces({ prefix, suffix, limit: NAMESPACE_SCAN_CAP, offset: 0 });
    const truncated = new Map<string, string[]>();
    for (const ns of all) {
      const cut = ns.slice(1, q.max_depth + 1);
      truncated.set(cut.join('\u0000'), cut);
    }
    return [...truncated.values()].slice(q.offset, q.offset + q.limit);
  }

  /** Deletes every item of the tenant's store (the operator's reset), a page of namespaces at a time. */
  async clear(tenantId: string): Promise<void> {
    const prefix = [tenantLabel(tenantId)];
    await this.owners.clear(prefix[0]);
    for (;;) {
      const namespaces = await this.store.listNamespaces({ prefix, limit: 100, offset: 0 });
      if (namespaces.length === 0) return;
      for (const namespace of namespaces) {
        for (let items = await this.store.search(namespace, { limit: 100 }); items.length > 0;) {
          await this.store.batch(items.map((i) => ({ namespace: i.namespace, key: i.key, value: null })));
          items = await this.store.search(namespace, { limit: 100 });
        }
      }
    }
  }

  /** STORE_MAX_KEY_CHARS for the key and each namespace label, STORE_MAX_VALUE_BYTES for the value's JSON. */
  private checkSizes(namespace: string[], key: string, value: Record<string, unknown>): void {
    const { maxKeyChars, maxValueBytes } = this.config.store;
    const longest = [key, ...namespace].reduce((a, b) => (b.length > a.length ? b : a));
    if (longest.length > maxKeyChars) {
      const what = longest === key ? 'key' : 'a namespace label';
      throw new LimitExceededException(
        'STORE_KEY_TOO_LONG',
        `${what} has ${longest.length} characters`,
        'STORE_MAX_KEY_CHARS',
        maxKeyChars,
      );
    }
    const bytes = Buffer.byteLength(JSON.stringify(value));
    if (bytes > maxValueBytes) {
      throw new LimitExceededException(
        'STORE_VALUE_TOO_LARGE',
        `value is ${bytes} bytes of JSON`,
        'STORE_MAX_VALUE_BYTES',
        maxValueBytes,
        413,
      );
    }
  }

  private wire(item: (Item & { score?: number }) | null): WireItem | null {
    if (!item) return null;
    return {
      namespace: item.namespace.slice(1),
      key: item.key,
      value: item.value,
      created_at: iso(item.createdAt),
      updated_at: iso(item.updatedAt),
      ...(item.score !== undefined ? { score: item.score } : {}),
    };
  }
}
