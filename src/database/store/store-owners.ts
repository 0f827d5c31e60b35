import type { Pool } from 'pg';

import { CHECKPOINT_SCHEMA } from '../checkpoint-schema';

/** An item as the store keys it: its whole namespace (the tenant's label first) and its key. */
export interface ItemRef {
  namespace: string[];
  key: string;
}

/** the store's own key of a namespace: its labels joined with `:` (which no label may hold) */
const prefixOf = (namespace: string[]) => namespace.join(':');

/**
 * Who put each store item (table `store_owners`, migration 1764020000000): the user of the request that first
 * wrote it, for the built-in owner rule. The only reader and writer of the table.
 */
export class StoreOwners {
  constructor(private readonly pool: Pool) {}

  /** The owner of each item, by `prefix\u0000key` (items without one are absent). */
  async ownersOf(items: ItemRef[]): Promise<Map<string, string>> {
    if (items.length === 0) return new Map();
    const { rows } = await this.pool.query<{ prefix: string; key: string; owner: string }>(
      `SELECT o.prefix, o.key, o.owner FROM store_owners o
         JOIN unnest($1::text[], $2::text[]) AS i(prefix, key) ON o.prefix = i.prefix AND o.key = i.key`,
      [items.map((i) => prefixOf(i.namespace)), items.map((i) => i.key)],
    );
    return new Map(rows.map((r) => [`${r.prefix}\u0000${r.key}`, r.owner]));
  }

  async ownerOf(item: ItemRef): Promise<string | undefined> {
    return (await this.ownersOf([item])).get(refKey(item));
  }

  /** A new item's owner: `owner`, or none (the row an earlier item under the same key left, if any, goes). */
  async record(item: ItemRef, owner: string | undefined): Promise<void> {
    if (!owner) return this.forget(item);
    await this.pool.query(
      `INSERT INTO store_owners (prefix, key, owner) VALUES ($1, $2, $3) ON CONFLICT (prefix, key) DO UPDATE SET owner = EXCLUDED.owner`,
      [prefixOf(item.namespace), item.key, owner],
    );
  }

  async forget(item: ItemRef): Promise<void> {
    await this.pool.query(`DELETE FROM store_owners WHERE prefix = $1 AND key = $2`, [prefixOf(item.namespace), item.key]);
  }

  /**
   * The namespaces (under `label`, the tenant's) where `owner` has a live item, label included: the store's
   * table is read beside this one, since an item whose TTL ran out is gone from the store but not from here.
   */
  async namespacesOf(label: string, owner: string): Promise<string[][]> {
    const { rows } = await this.pool.query<{ prefix: string }>(
      `SELECT DISTINCT o.prefix FROM store_owners o
         JOIN "${CHECKPOINT_SCHEMA}".store s ON s.namespace_path = o.prefix AND s.key = o.key
          AND (s.expires_at IS NULL OR s.expires_at > CURRENT_TIMESTAMP)
        WHERE o.owner = $1 AND (o.prefix = $2 OR o.prefix LIKE $2 || ':%') ORDER BY o.prefix`,
      [owner, label],
    );
    return rows.map((r) => r.prefix.split(':'));
  }

  /** Forgets the owners of every item under `label` (the tenant's store reset). */
  async clear(label: string): Promise<void> {
    await this.pool.query(`DELETE FROM store_owners WHERE prefix = $1 OR prefix LIKE $1 || ':%'`, [label]);
  }
}

/** The key of an item in `ownersOf`'s map. */
export function refKey(item: ItemRef): string {
  return `${prefixOf(item.namespace)}\u0000${item.key}`;
}
