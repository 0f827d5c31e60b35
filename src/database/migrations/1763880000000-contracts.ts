import { MigrationInterface, QueryRunner } from 'typeorm';

/** Contracts parsed into articles and exhibits, indexed for full-text and trigram search. */
export class Contracts1763880000000 implements MigrationInterface {
  name = 'Contracts1763880000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(`
      CREATE TABLE contracts (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL DEFAULT 'default',
        title text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('user', 'standard')),
        preamble text NOT NULL DEFAULT '',
        closing text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE contract_articles (
        id bigserial PRIMARY KEY,
        contract_id uuid NOT NULL REFERENCES contracts(id) ON DELETE CASCADE,
        position int NOT NULL,
        number text NOT NULL,
        idx int NOT NULL,
        sub_index int,
        title text NOT NULL,
        clauses jsonb NOT NULL,
        text text NOT NULL,
        tsv tsvector GENERATED ALWAYS AS (
          setweight(to_tsvector('simple', title), 'A') || setweight(to_tsvector('simple', text), 'B')
        ) STORED,
        UNIQUE (contract_id, number)
      )`);
    await q.query(`CREATE INDEX idx_contract_articles_tsv ON contract_articles USING gin (tsv)`);
    await q.query(`CREATE INDEX idx_contract_articles_trgm ON contract_articles USING gin (text gin_trgm_ops)`);
    await q.query(`CREATE INDEX idx_contract_articles_title_trgm ON contract_articles USING gin (title gin_trgm_ops)`);
    await q.query(`
      CREATE TABLE contract_exhibits (
        id bigserial PRIMARY KEY,
        contract_id uuid NOT NULL REFERENCES contracts(id) ON DELETE CASCADE,
        number text NOT NULL,
        idx int NOT NULL,
        title text NOT NULL,
        content text NOT NULL
      )`);
    await q.query(`CREATE INDEX idx_contract_exhibits ON contract_exhibits (contract_id, idx)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE contract_exhibits`);
    await q.query(`DROP TABLE contract_articles`);
    await q.query(`DROP TABLE contracts`);
  }
}
