import { createHash } from 'node:crypto';

import type { Item } from '@langchain/langgraph-checkpoint';
import { PostgresStore } from '@langchain/langgraph-checkpoint-postgres/store';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import type { Pool } from 'pg';

import { CHECKPOINT_SCHEMA } from '../../agents/agent-registry.service';
import { PG_POOL } from '../../database/pg-pool';
import { InvalidRequestException } from '../errors';

/**
 * The namespace label that holds a tenant's items: a fixed-length hash, so no tenant's label is a prefix of
 * another's (the store matches prefixes with `LIKE 'label%'`) and tenant ids with `.` or `_` (which the store
 * refuses in labels) need no escaping. Clients never see it.
 */
export function tenantLabel(tenantId: string): string {
  return `t${createHash('sha256').update(tenantId).digest('hex').slice(0, 40)}`;
}

/** What the store (and the `:`-joined namespace path it keeps) cannot take in a label. */
const BAD_LABEL = /[.:%_\\]/;

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
 * LangGraph's long-term memory store on Postgres (`PostgresStore`, tables `langgraph.store*`, created at
 * start-up), per tenant: every namespace starts with the tenant's hidden label.
 */
@Injectable()
export class StoreService implements OnModuleInit {
  readonly store: PostgresStore;

  constructor(@Inject(PG_POOL) pool: Pool) {
    this.store = new PostgresStore({ connectionOptions: { max: 1 }, schema: CHECKPOINT_SCHEMA, ensureTables: true });
    // PostgresStore opens a pool of its own; it runs on the service's pool instead, which on the embedded Postgres
    // must be the only one (see database.module.ts). Its own pool never connected; it is closed unused.
    const core = (this.store as unknown as { core: { pool: Pool } }).core;
    void core.pool.end().catch(() => undefined);
    core.pool = pool;
  }

  async onModuleInit(): Promise<void> {
    await this.store.setup();
  }

  async put(
    tenantId: string,
    namespace: string[],
    key: string,
    value: Record<string, unknown>,
    index?: false | string[] | null,
    ttl?: number | null,
  ) {
    checkNamespace(namespace, 'namespace', false);
    await this.store.put([tenantLabel(tenantId), ...namespace], key, value, index ?? undefined, ttl ? { ttl } : undefined);
  }

  async get(tenantId: string, namespace: string[], key: string): Promise<WireItem | null> {
    checkNamespace(namespace, 'namespace', true);
    return this.wire(await this.store.get([tenantLabel(tenantId), ...namespace], key));
  }

  async delete(tenantId: string, namespace: string[], key: string): Promise<void> {
    checkNamespace(namespace, 'namespace', true);
    await this.store.delete([tenantLabel(tenantId), ...namespace], key);
  }

  async search(
    tenantId: string,
    prefix: string[],
    q: { filter?: Record<string, unknown> | null; limit: number; offset: number; query?: string | null },
  ): Promise<WireItem[]> {
    checkNamespace(prefix, 'namespace_prefix', true);
    const items = await this.store.search([tenantLabel(tenantId), ...prefix], {
      filter: (q.filter ?? undefined) as Record<string, string | number | boolean | null> | undefined,
      limit: q.limit,
      offset: q.offset,
      query: q.query ?? undefined,
    });
    return items.map((i) => this.wire(i)!);
  }

  async namespaces(
    tenantId: string,
    q: { prefix?: string[] | null; suffix?: string[] | null; max_depth?: number | null; limit: number; offset: number },
  ): Promise<string[][]> {
    if (q.prefix) checkNamespace(q.prefix, 'prefix', true);
    if (q.suffix) checkNamespace(q.suffix, 'suffix', true);
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
