import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DomainException } from '../../common/domain.exception';
import { rowsOf } from '../../database/query-rows';
import { chunkText } from './chunker';
import { VectorSearch } from '../vectors/vector-search.service';
import { prefixTsQuery, searchTerms } from './search-query';

export interface DocumentView {
  document_id: string;
  title: string;
  source: string | null;
  chunks: number;
  created_at?: string;
}

export interface DocumentHit {
  document_id: string;
  title: string;
  source: string | null;
  heading: string | null;
  content: string;
  score: number;
}

export class DocumentNotFoundException extends DomainException {
  constructor(id: string) {
    super('DOCUMENT_NOT_FOUND', `document ${id} does not exist`, 404);
  }
}

const RRF_K = 60;

/**
 * The knowledge base on Postgres: documents split into overlapping chunks; hybrid search fusing full-text
 * (prefix terms, particles stripped) and trigram word similarity by reciprocal-rank fusion.
 */
@Injectable()
export class DocumentsService {
  constructor(
    private readonly db: DataSource,
    private readonly vectors: VectorSearch,
  ) {}

  async ingest(doc: { title: string; content: string; source?: string }, tenantId = 'default'): Promise<DocumentView> {
    const chunks = chunkText(doc.content);
    if (chunks.length === 0) throw new DomainException('EMPTY_DOCUMENT', 'document has no text', 422);
    const id = randomUUID();
    // one statement: the document and all its chunks, or nothing
    await this.db.query(
      `WITH d AS (
         INSERT INTO documents (id, tenant_id, title, source, chars) VALUES ($1, $2, $3, $4, $5) RETURNING id)
       INSERT INTO document_chunks (document_id, idx, heading, content)
       SELECT d.id, c.idx, c.heading, c.content FROM d,
              jsonb_to_recordset($6::jsonb) AS c(idx int, heading text, content text)`,
      [id, tenantId, doc.title, doc.source ?? null, doc.content.length, JSON.stringify(chunks.map((c) => ({ idx: c.index, heading: c.heading, content: c.content })))],
    );
    if (this.vectors.enabled) {
      const rows = (await this.db.query(`SELECT id, coalesce(heading, '') || E'\n' || content AS text FROM document_chunks WHERE document_id = $1`, [id])) as Array<{ id: string; text: string }>;
      await this.vectors.index('document_chunks', rows);
    }
    return { document_id: id, title: doc.title, source: doc.source ?? null, chunks: chunks.length };
  }

  async list(tenantId = 'default'): Promise<DocumentView[]> {
    const rows = await this.db.query(
      `SELECT d.id, d.title, d.source, d.created_at, count(c.id)::int AS chunks
         FROM documents d LEFT JOIN document_chunks c ON c.document_id = d.id
        WHERE d.tenant_id = $1 GROUP BY d.id ORDER BY d.created_at DESC`,
      [tenantId],
    );
    return (rows as Array<{ id: string; title: string; source: string | null; created_at: Date; chunks: number }>).map((r) => ({
      document_id: r.id, title: r.title, source: r.source, chunks: r.chunks, created_at: r.created_at.toISOString(),
    }));
  }

  async hasAny(tenantId = 'default'): Promise<boolean> {
    const [row] = (await this.db.query(`SELECT EXISTS (SELECT 1 FROM documents WHERE tenant_id = $1) AS any`, [tenantId])) as Array<{ any: boolean }>;
    return row.any;
  }

  async delete(id: string, tenantId = 'default'): Promise<void> {
    const rows = rowsOf(await this.db.query(`DELETE FROM documents WHERE id = $1 AND tenant_id = $2 RETURNING id`, [id, tenantId]));
    if (rows.length === 0) throw new DocumentNotFoundException(id);
  }

  async search(query: string, limit = 4, tenantId = 'default'): Promise<DocumentHit[]> {
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
       ${vector ? `vec AS (
         SELECT c.id, row_number() OVER (ORDER BY c.embedding <=> $5::vector) AS r
           FROM document_chunks c JOIN documents d ON d.id = c.document_id
          WHERE d.tenant_id = $3 AND c.embedding IS NOT NULL ORDER BY c.embedding <=> $5::vector LIMIT 20),` : ''}
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
