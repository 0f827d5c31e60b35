import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The store's semantic index (database/store/semantic-store.ts), beside LangGraph's own `store` table (created
 * after the migrations, so no foreign key: the store layer deletes an item's vectors with it):
 * - `store_vectors`: per item (`namespace_path`, `key`, as the store keys it) and embedded field, its unit-length
 *   embedding as `real[]` (always: exact similarity in SQL) and, where pgvector exists, as `vector` too; `fields`:
 *   the put's own field list (null: the configured one), kept for re-embedding after a configuration change.
 * - `store_index_pending`: items written but not embedded yet (the write committed first); `version` is the put's,
 *   so an older embedding finishing late never replaces a newer one.
 * - `store_index_state`: the index configuration the vectors were made with (embed, dims, fields).
 */
export class StoreVectors1764040000000 implements MigrationInterface {
  name = 'StoreVectors1764040000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE IF NOT EXISTS store_vectors (
         namespace_path text NOT NULL,
         key text NOT NULL,
         field_path text NOT NULL,
         embedding real[] NOT NULL,
         fields jsonb,
         PRIMARY KEY (namespace_path, key, field_path)
       )`,
    );
    await q.query(`
      DO $$
      BEGIN
        BEGIN
          CREATE EXTENSION IF NOT EXISTS vector;
        EXCEPTION WHEN OTHERS THEN
          RAISE NOTICE 'pgvector is not available: store search by meaning uses exact similarity over real[]';
        END;
        IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') THEN
          ALTER TABLE store_vectors ADD COLUMN IF NOT EXISTS embedding_v vector;
        END IF;
      END $$`);
    await q.query(
      `CREATE TABLE IF NOT EXISTS store_index_pending (
         namespace_path text NOT NULL,
         key text NOT NULL,
         version text NOT NULL,
         fields jsonb,
         attempts int NOT NULL DEFAULT 0,
         queued_at timestamptz NOT NULL DEFAULT now(),
         PRIMARY KEY (namespace_path, key)
       )`,
    );
    await q.query(
      `CREATE TABLE IF NOT EXISTS store_index_state (
         id int PRIMARY KEY DEFAULT 1 CHECK (id = 1),
         embed text NOT NULL,
         dims int,
         fields jsonb NOT NULL,
         updated_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS store_index_state`);
    await q.query(`DROP TABLE IF EXISTS store_index_pending`);
    await q.query(`DROP TABLE IF EXISTS store_vectors`);
  }
}
