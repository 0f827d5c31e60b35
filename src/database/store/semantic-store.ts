import {
  BaseStore,
  type GetOperation,
  type Item,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchOperation,
} from '@langchain/langgraph';
import type { Pool } from 'pg';

import { CHECKPOINT_SCHEMA } from '../checkpoint-schema';
import type { IndexWrite, SemanticIndex } from './semantic-index';

/** What a put may add to LangGraph's PutOperation: the item's TTL in minutes (PostgresStore reads `options.ttl`). */
export type PutWithTtl = PutOperation & { options?: { ttl?: number } };
/** What a get or search may add: whether it pushes the items' expiry out again (default: `store.ttl.refresh_on_read`). */
export type ReadWithRefresh = (GetOperation | SearchOperation) & { refreshTtl?: boolean };

const isSearch = (op: Operation): op is SearchOperation => 'namespacePrefix' in op;
const isPut = (op: Operation): op is PutWithTtl => 'value' in op;
const isGet = (op: Operation): op is GetOperation => 'key' in op && !('value' in op);

/** PostgresStore's own text search (ts_rank over the value), which its `batch` reaches on a second connection. */
interface TextSearching {
  textSearch(
    prefix: string[],
    options: { query: string; filter?: Record<string, unknown>; limit?: number; offset?: number },
  ): Promise<Item[]>;
}

const hasTextSearch = (store: BaseStore): boolean => typeof (store as Partial<TextSearching>).textSearch === 'function';

/** A text search's items as the batch would give them: without the text rank (`score` is the index's alone). */
async function textSearch(store: TextSearching, op: SearchOperation): Promise<Item[]> {
  const found = await store.textSearch(op.namespacePrefix, {
    query: op.query!,
    filter: op.filter,
    limit: op.limit ?? 10,
    offset: op.offset ?? 0,
  });
  return found.map(({ namespace, key, value, createdAt, updatedAt }) => ({ namespace, key, value, createdAt, updatedAt }));
}

/**
 * The service's store: LangGraph's PostgresStore (created without its own `index`, so it needs no pgvector)
 * with the semantic index beside it. A put is written by PostgresStore, then embedded (SemanticIndex; the put
 * waits a bounded time); a search with a `query` is ranked by the index when one is configured (items without
 * vectors — `index: false`, not embedded yet — are left out, as LangGraph's own indexed store does), else it is
 * PostgresStore's text search. Reads refresh expiring items' TTL by their own TTL (`refresh_on_read`, or
 * per read `refreshTtl`).
 */
export class SemanticStore extends BaseStore {
  constructor(
    private readonly inner: BaseStore,
    private readonly pool: Pool,
    readonly index: SemanticIndex | undefined,
    private readonly refreshOnRead = false,
  ) {
    super();
  }

  /** A put with the item's TTL in minutes (`options.ttl`; fractions allowed). */
  async put(namespace: string[], key: string, value: Record<string, unknown>, index?: false | string[], options?: { ttl?: number }) {
    await this.batch([{ namespace, key, value, index, ...(options ? { options } : {}) } as PutWithTtl]);
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const index = this.index;
    const ranked = (op: Operation): op is SearchOperation => !!index && isSearch(op) && !!op.query;
    // without an index a `query` is PostgresStore's text search, asked on its own: inside `batch` it would take a
    // second connection while holding one (a deadlock where the pool has one connection: the embedded Postgres)
    const texted = (op: Operation): op is SearchOperation => !index && isSearch(op) && !!op.query && hasTextSearch(this.inner);
    const passed = operations.map((op, i) => ({ op, i })).filter(({ op }) => !ranked(op) && !texted(op));
    const results: unknown[] = new Array(operations.length);
    if (passed.length > 0) {
      const innerResults = (await this.inner.batch(passed.map(({ op }) => op))) as unknown[];
      passed.forEach(({ i }, n) => (results[i] = innerResults[n]));
    }
    if (index) await this.indexWrites(index, operations.filter(isPut));
    for (const [i, op] of operations.entries()) {
      if (texted(op)) results[i] = await textSearch(this.inner as unknown as TextSearching, op);
      if (!ranked(op)) continue;
      const query = await index!.queryVector(op.query!);
      results[i] = await index!.table.search(op.namespacePrefix, query, {
        filter: op.filter,
        limit: op.limit ?? 10,
        offset: op.offset ?? 0,
      });
    }
    await this.refresh(operations, results);
    return results as OperationResults<Op>;
  }

  /** Deleted items and those put with `index: false` lose their vectors; the others are embedded. */
  private async indexWrites(index: SemanticIndex, puts: PutWithTtl[]): Promise<void> {
    if (puts.length === 0) return;
    const latest = new Map<string, PutWithTtl>();
    for (const op of puts) latest.set(`${op.namespace.join(':')}\u0000${op.key}`, op);
    const unindexed = [...latest.values()].filter((op) => op.value === null || op.index === false);
    await index.table.forget(unindexed.map((op) => ({ path: op.namespace.join(':'), key: op.key })));
    const writes: IndexWrite[] = [...latest.values()]
      .filter((op) => op.value !== null && op.index !== false)
      .map((op) => ({
        path: op.namespace.join(':'),
        key: op.key,
        value: op.value!,
        ...(Array.isArray(op.index) ? { fields: op.index } : {}),
      }));
    await index.index(writes);
  }

  /** Pushes the expiry of the items gets and searches returned out by their own TTL (expires_at − updated_at). */
  private async refresh(operations: Operation[], results: unknown[]): Promise<void> {
    const items: Item[] = [];
    operations.forEach((op, i) => {
      if (!isGet(op) && !isSearch(op)) return;
      if (!((op as ReadWithRefresh).refreshTtl ?? this.refreshOnRead)) return;
      const found = results[i];
      if (Array.isArray(found)) items.push(...(found as Item[]));
      else if (found) items.push(found as Item);
    });
    await refreshTtl(this.pool, items);
  }

  async start(): Promise<void> {
    await this.inner.start?.();
  }

  async stop(): Promise<void> {
    this.index?.stop();
  }
}

/**
 * Renews expiring items: each expires its own TTL after now again. A put stores expiry and update time
 * together, so their difference is the item's TTL; the store's trigger sets `updated_at` to now on update.
 */
export async function refreshTtl(pool: Pool, items: Array<Pick<Item, 'namespace' | 'key'>>): Promise<void> {
  if (items.length === 0) return;
  await pool.query(
    `UPDATE "${CHECKPOINT_SCHEMA}".store s SET expires_at = CURRENT_TIMESTAMP + (s.expires_at - s.updated_at)
       FROM unnest($1::text[], $2::text[]) AS i(path, key)
      WHERE s.namespace_path = i.path AND s.key = i.key AND s.expires_at IS NOT NULL AND s.expires_at > CURRENT_TIMESTAMP`,
    [items.map((i) => i.namespace.join(':')), items.map((i) => i.key)],
  );
}
