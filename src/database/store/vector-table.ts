import type { Item } from '@langchain/langgraph';
import type { Pool } from 'pg';

import { CHECKPOINT_SCHEMA } from '../checkpoint-schema';
import { filterConditions } from './filter-sql';

/** An item as the store keys it: its `:`-joined namespace path and key. */
export interface ItemPath {
  path: string;
  key: string;
}

/** An item waiting for its vectors: the put's version and field list (null: the configured one), and its value. */
export interface PendingItem extends ItemPath {
  version: string;
  fields: string[] | null;
  value: Record<string, unknown>;
}

/** One embedded field of an item. */
export interface FieldVector {
  field: string;
  vector: number[];
}

/** The embed, dims and fields the vectors were made with (table `store_index_state`). */
export interface IndexState {
  embed: string;
  dims: number | null;
  fields: string[];
}

/** Whether two index configurations make the same vectors. */
export function sameIndex(a: IndexState, b: IndexState): boolean {
  return a.embed === b.embed && a.dims === b.dims && JSON.stringify(a.fields) === JSON.stringify(b.fields);
}

const STORE = `"${CHECKPOINT_SCHEMA}".store`;
const LIVE = '(s.expires_at IS NULL OR s.expires_at > CURRENT_TIMESTAMP)';

/** pgvector's text form of a vector (`[1,2,3]`); Postgres reads `real[]` from `{1,2,3}`. */
const vectorText = (v: number[]) => `[${v.join(',')}]`;

/**
 * The SQL of the store's semantic index (tables of migration 1764040000000): vectors, pending items, the
 * recorded configuration, and the ranking — by pgvector's cosine operator where the `embedding_v` column exists,
 * else by the exact dot product of the unit-length `real[]` vectors (the same score, computed without pgvector).
 */
export class VectorTable {
  constructor(
    private readonly pool: Pool,
    /** whether pgvector exists (the `embedding_v` column was created) */
    readonly pgvector: boolean,
  ) {}

  /** Whether the database has pgvector for the store's vectors. */
  static async hasPgvector(pool: Pool): Promise<boolean> {
    const { rows } = await pool.query(
      `SELECT 1 FROM information_schema.columns WHERE table_name = 'store_vectors' AND column_name = 'embedding_v' LIMIT 1`,
    );
    return rows.length > 0;
  }

  /** Marks items as waiting for vectors (a newer put's version replaces an older one's). */
  async markPending(items: Array<ItemPath & { version: string; fields: string[] | null }>): Promise<void> {
    if (items.length === 0) return;
    await this.pool.query(
      `INSERT INTO store_index_pending (namespace_path, key, version, fields)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[])
       ON CONFLICT (namespace_path, key) DO UPDATE SET version = EXCLUDED.version, fields = EXCLUDED.fields, attempts = 0, queued_at = now()`,
      [
        items.map((i) => i.path),
        items.map((i) => i.key),
        items.map((i) => i.version),
        items.map((i) => (i.fields ? JSON.stringify(i.fields) : null)),
      ],
    );
  }

  /** Removes items' vectors and pending markers (deleted, or put with `index: false`). */
  async forget(items: ItemPath[]): Promise<void> {
    if (items.length === 0) return;
    const params = [items.map((i) => i.path), items.map((i) => i.key)];
    const match = (t: string) =>
      `DELETE FROM ${t} t USING unnest($1::text[], $2::text[]) AS i(path, key) WHERE t.namespace_path = i.path AND t.key = i.key`;
    await this.pool.query(match('store_vectors'), params);
    await this.pool.query(match('store_index_pending'), params);
  }

  /**
   * Stores the vectors of items whose pending version is still the one embedded (a newer put re-embeds them
   * instead), replacing their old vectors, in one transaction. Returns how many items were written.
   */
  async write(items: Array<PendingItem & { vectors: FieldVector[] }>): Promise<number> {
    if (items.length === 0) return 0;
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ namespace_path: string; key: string }>(
        `DELETE FROM store_index_pending p USING unnest($1::text[], $2::text[], $3::text[]) AS i(path, key, version)
          WHERE p.namespace_path = i.path AND p.key = i.key AND p.version = i.version RETURNING p.namespace_path, p.key`,
        [items.map((i) => i.path), items.map((i) => i.key), items.map((i) => i.version)],
      );
      const current = new Set(rows.map((r) => `${r.namespace_path}\u0000${r.key}`));
      const written = items.filter((i) => current.has(`${i.path}\u0000${i.key}`));
      if (written.length > 0) {
        await client.query(
          `DELETE FROM store_vectors v USING unnest($1::text[], $2::text[]) AS i(path, key) WHERE v.namespace_path = i.path AND v.key = i.key`,
          [written.map((i) => i.path), written.map((i) => i.key)],
        );
        const rowsOf = written.flatMap((i) => i.vectors.map((v) => ({ ...i, ...v })));
        const vectorColumn = this.pgvector ? ', embedding_v' : '';
        const vectorValue = this.pgvector ? ', r.vec::vector' : '';
        await client.query(
          `INSERT INTO store_vectors (namespace_path, key, field_path, fields, embedding${vectorColumn})
             SELECT r.path, r.key, r.field, r.fields, translate(r.vec, '[]', '{}')::real[]${vectorValue}
               FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::text[]) AS r(path, key, field, fields, vec)`,
          [
            rowsOf.map((r) => r.path),
            rowsOf.map((r) => r.key),
            rowsOf.map((r) => r.field),
            rowsOf.map((r) => (r.fields ? JSON.stringify(r.fields) : null)),
            rowsOf.map((r) => vectorText(r.vector)),
          ],
        );
      }
      await client.query('COMMIT');
      return written.length;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /**
   * Claims up to `limit` pending items queued more than `staleMs` ago (so a put's own embedding is not
   * repeated), with their current values; pending items whose store row is gone are dropped.
   */
  async claimPending(limit: number, staleMs: number): Promise<PendingItem[]> {
    await this.pool.query(
      `DELETE FROM store_index_pending p WHERE NOT EXISTS (SELECT 1 FROM ${STORE} s WHERE s.namespace_path = p.namespace_path AND s.key = p.key)`,
    );
    const { rows } = await this.pool.query<{
      namespace_path: string;
      key: string;
      version: string;
      fields: string[] | null;
      value: Record<string, unknown>;
    }>(
      `WITH claimed AS (
         UPDATE store_index_pending p SET queued_at = now(), attempts = p.attempts + 1
          WHERE (p.namespace_path, p.key) IN (
            SELECT namespace_path, key FROM store_index_pending WHERE queued_at < now() - make_interval(secs => $2::float8 / 1000)
             ORDER BY queued_at LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING p.namespace_path, p.key, p.version, p.fields)
       SELECT c.namespace_path, c.key, c.version, c.fields, s.value FROM claimed c
         JOIN ${STORE} s ON s.namespace_path = c.namespace_path AND s.key = c.key`,
      [limit, staleMs],
    );
    return rows.map((r) => ({ path: r.namespace_path, key: r.key, version: r.version, fields: r.fields, value: r.value }));
  }

  /** How many items wait for vectors. */
  async pendingCount(): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM store_index_pending`);
    return rows[0].n;
  }

  /** The configuration the vectors were made with, or null before the first start with an index. */
  async state(): Promise<IndexState | null> {
    const { rows } = await this.pool.query<IndexState>(`SELECT embed, dims, fields FROM store_index_state WHERE id = 1`);
    return rows[0] ?? null;
  }

  /**
   * Records `state` as the index's configuration and queues items for embedding again: `all` every item of
   * the store (the first start with an index), else those that had vectors or were waiting (a changed
   * configuration; their old vectors go). Returns how many items were queued, or null when another process
   * recorded this configuration first.
   */
  async restart(state: IndexState, all: boolean): Promise<number | null> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // processes starting together: one restarts the index, the others find it done
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('store-index-state'))`);
      const { rows } = await client.query<IndexState>(`SELECT embed, dims, fields FROM store_index_state WHERE id = 1`);
      if (rows[0] && sameIndex(rows[0], state)) {
        await client.query('COMMIT');
        return null;
      }
      const source = all
        ? `SELECT namespace_path, key, NULL::jsonb AS fields FROM ${STORE}`
        : `SELECT DISTINCT ON (namespace_path, key) namespace_path, key, fields FROM store_vectors`;
      const { rowCount } = await client.query(
        `INSERT INTO store_index_pending (namespace_path, key, version, fields, queued_at)
           SELECT namespace_path, key, 'reindex', fields, 'epoch' FROM (${source}) q
         ON CONFLICT (namespace_path, key) DO UPDATE SET version = 'reindex', queued_at = 'epoch', attempts = 0`,
      );
      await client.query(`UPDATE store_index_pending SET queued_at = 'epoch', version = 'reindex'`);
      await client.query(`DELETE FROM store_vectors`);
      await client.query(
        `INSERT INTO store_index_state (id, embed, dims, fields) VALUES (1, $1, $2, $3::jsonb)
         ON CONFLICT (id) DO UPDATE SET embed = EXCLUDED.embed, dims = EXCLUDED.dims, fields = EXCLUDED.fields, updated_at = now()`,
        [state.embed, state.dims, JSON.stringify(state.fields)],
      );
      await client.query('COMMIT');
      return rowCount ?? 0;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /**
   * Live items under `prefix` (whole labels) that have vectors, ranked by their best field's cosine similarity
   * to `query` (a unit vector), after `filter`; each with its `score`.
   */
  async search(
    prefix: string[],
    query: number[],
    opts: { filter?: Record<string, unknown>; limit: number; offset: number },
  ): Promise<Array<Item & { score: number }>> {
    const params: unknown[] = [this.pgvector ? vectorText(query) : query];
    const similarity = this.pgvector
      ? `1 - (v.embedding_v <=> $1::vector)`
      : `(SELECT sum(a::float8 * b) FROM unnest(v.embedding, $1::float8[]) AS t(a, b))`;
    const under = prefix.length > 0 ? `WHERE v.namespace_path = $2 OR v.namespace_path LIKE $2 || ':%'` : '';
    if (prefix.length > 0) params.push(prefix.join(':'));
    const conditions = [LIVE, ...filterConditions(opts.filter, params, 's.value')];
    const { rows } = await this.pool.query<{
      namespace_path: string;
      key: string;
      value: Record<string, unknown>;
      created_at: Date;
      updated_at: Date;
      score: number;
    }>(
      `SELECT s.namespace_path, s.key, s.value, s.created_at, s.updated_at, b.score FROM (
         SELECT v.namespace_path, v.key, max(${similarity})::float8 AS score FROM store_vectors v ${under}
          GROUP BY v.namespace_path, v.key) b
         JOIN ${STORE} s ON s.namespace_path = b.namespace_path AND s.key = b.key
        WHERE ${conditions.join(' AND ')}
        ORDER BY b.score DESC, s.updated_at DESC, s.namespace_path, s.key
        LIMIT $${params.push(opts.limit)} OFFSET $${params.push(opts.offset)}`,
      params,
    );
    return rows.map((r) => ({
      namespace: r.namespace_path.split(':'),
      key: r.key,
      value: r.value,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      score: Number(r.score),
    }));
  }
}
