import { MigrationInterface, QueryRunner } from 'typeorm';

/** Knowledge-base documents, chunked, with full-text and trigram indexes for hybrid search. */
export class Documents1763890000000 implements MigrationInterface {
  name = 'Documents1763890000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(`
      CREATE TABLE documents (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL DEFAULT 'default',
        title text NOT NULL,
        source text,
        chars int NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE document_chunks (
        id bigserial PRIMARY KEY,
        document_id uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        idx int NOT NULL,
        heading text,
        content text NOT NULL,
        tsv tsvector GENERATED ALWAYS AS (
          setweight(to_tsvector('simple', coalesce(heading, '')), 'A') || setweight(to_tsvector('simple', content), 'B')
        ) STORED
      )`);
    await q.query(`CREATE INDEX idx_document_chunks_doc ON document_chunks (document_id, idx)`);
    await q.query(`CREATE INDEX idx_document_chunks_tsv ON document_chunks USING gin (tsv)`);
    await q.query(`CREATE INDEX idx_document_chunks_trgm ON document_chunks USING gin (content gin_trgm_ops)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE document_chunks`);
    await q.query(`DROP TABLE documents`);
  }
}
