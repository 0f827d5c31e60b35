import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { VectorSearch } from '../vectors/vector-search.service';
import { type DocumentHit, type IndexedDocument, RetrievalBackend } from './retrieval-backend';
import { prefixTsQuery, searchTerms } from './search-query';

const RRF_K = 60;

/**
 * The default backend: Postgres full-text (prefix terms, particles stripped) and trigram word similarity, plus
 * pgvector similarity when embeddings are configured, fused by reciprocal-rank fusion.
 */
@Injectable()
export class PostgresRetrieval extends RetrievalBackend {
  readonly name = 'postgres' as const;

  constructor(
    private readonly db: DataSource,
    private readonly vectors: VectorSearch,
  ) {
    super();
  }

  async index(doc: IndexedDocument): Promise<void> {
    if (!this.vectors.enabled) return;
    const rows = (await this.db.query(
      `SELECT id, coalesce(heading, '') || E'\\n' || content AS text FROM document_chunks WHERE document_id = $1`,
      [doc.document_id],
    )) as Array<{ id: string; text: string }>;
    await this.vectors.index('document_chunks', rows);
  }

  async remove(): Promise<void> {
    // the chunks go with their document row (ON DELETE CASCADE)
  }

  async search(query: string, limit: number, tenantId: string): Promise<DocumentHit[]> {
    const terms = searchTerms(query);
    const tsq = prefixTsQuery(terms) ?? '';
    const vector = await this.vectors.queryVector(query);
    if (!tsq && !vector) return [];
    const rows = await this.db.query(
      `WITH fts AS (
         SELECT c.id, row_number() OVER (ORDER BY ts_rank(c.tsv, to_tsquery('simple', $1)) DESC) AS r
           FROM document_chunks c JOIN documents d ON d.id = c.document_id
          WHERE d.tenant_id = $3 AND $1 <> '' AND c.tsv @@ to_tsquery('simple', $1)
          LIMIT 50),
       tri AS (
         SELECT c.id, row_number() OVER (ORDER BY word_similarity($2, c.content) DESC) AS r
           FROM document_chunks c JOIN documents d ON d.id = c.document_id
          WHERE d.tenant_id = $3 AND $2 <% c.content
          LIMIT 50),
       ${
         vector
           ? `vec AS (
         SELECT c.id, row_number() OVER (ORDER BY c.embedding <=> $5::vector) AS r
           FROM document_chunks c JOIN documents d ON d.id = c.document_id
          WHERE d.tenant_id = $3 AND c.embedding IS NOT NULL ORDER BY c.embedding <=> $5::vector LIMIT 20),`
           : ''
       }
       fused AS (
         SELECT id, sum(1.0 / (${RRF_K} + r)) AS score
           FROM (SELECT * FROM fts UNION ALL SELECT * FROM tri${vector ? ' UNION ALL SELECT * FROM vec' : ''}) x GROUP BY id)
       SELECT d.id AS document_id, d.title, d.source, c.heading, c.content, f.score::float AS score
         FROM fused f JOIN document_chunks c ON c.id = f.id JOIN documents d ON d.id = c.document_id
        ORDER BY f.score DESC, c.id
        LIMIT $4`,
      [tsq, terms.join(' '), tenantId, limit, ...(vector ? [vector] : [])],
    );
    return rows as DocumentHit[];
  }
}
