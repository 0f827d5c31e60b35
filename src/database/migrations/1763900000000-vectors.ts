import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Optional vector columns: only where the `vector` extension can be created (the embedded PGlite has pgvector;
 * Debian's Postgres 15 does not). Without it, search stays full-text + trigram.
 */
export class Vectors1763900000000 implements MigrationInterface {
  name = 'Vectors1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $$
      BEGIN
        BEGIN
          CREATE EXTENSION IF NOT EXISTS vector;
        EXCEPTION WHEN OTHERS THEN
          RAISE NOTICE 'pgvector is not available: vector search disabled';
        END;
        IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') THEN
          ALTER TABLE contract_articles ADD COLUMN IF NOT EXISTS embedding vector;
          ALTER TABLE document_chunks ADD COLUMN IF NOT EXISTS embedding vector;
        END IF;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE contract_articles DROP COLUMN IF EXISTS embedding`);
    await q.query(`ALTER TABLE document_chunks DROP COLUMN IF EXISTS embedding`);
  }
}
