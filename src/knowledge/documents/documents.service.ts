import { randomUUID } from 'node:crypto';

import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { currentTenant, DEFAULT_TENANT } from '../../auth/tenant';
import { DomainException } from '../../common/domain.exception';
import { rowsOf } from '../../database/query-rows';
import { chunkText } from './chunker';
import type { DocumentHit } from './retrieval-backend';
import { RetrievalBackend } from './retrieval-backend';

export interface DocumentView {
  document_id: string;
  title: string;
  source: string | null;
  chunks: number;
  created_at?: string;
}

export type { DocumentHit } from './retrieval-backend';

export class DocumentNotFoundException extends DomainException {
  constructor(id: string) {
    super('DOCUMENT_NOT_FOUND', `document ${id} does not exist`, 404);
  }
}

/** Inside a run, callers that pass no tenant get the run's (auth/tenant.ts runInTenant). */
function runTenant(): string {
  return currentTenant() ?? DEFAULT_TENANT;
}

/**
 * The knowledge base: documents and their overlapping chunks in Postgres (the record), retrieval through
 * the configured backend — Postgres hybrid search (default) or OpenSearch.
 */
@Injectable()
export class DocumentsService {
  constructor(
    private readonly db: DataSource,
    private readonly backend: RetrievalBackend,
  ) {}

  async ingest(doc: { title: string; content: string; source?: string }, tenantId: string): Promise<DocumentView> {
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
      [
        id,
        tenantId,
        doc.title,
        doc.source ?? null,
        doc.content.length,
        JSON.stringify(chunks.map((c) => ({ idx: c.index, heading: c.heading, content: c.content }))),
      ],
    );
    await this.backend.index({ document_id: id, title: doc.title, source: doc.source ?? null, chunks }, tenantId);
    return { document_id: id, title: doc.title, source: doc.source ?? null, chunks: chunks.length };
  }

  async list(tenantId: string): Promise<DocumentView[]> {
    const rows = await this.db.query(
      `SELECT d.id, d.title, d.source, d.created_at, count(c.id)::int AS chunks
         FROM documents d LEFT JOIN document_chunks c ON c.document_id = d.id
        WHERE d.tenant_id = $1 GROUP BY d.id ORDER BY d.created_at DESC`,
      [tenantId],
    );
    return (rows as Array<{ id: string; title: string; source: string | null; created_at: Date; chunks: number }>).map((r) => ({
      document_id: r.id,
      title: r.title,
      source: r.source,
      chunks: r.chunks,
      created_at: r.created_at.toISOString(),
    }));
  }

  /** Whether the tenant has documents (inside a run: the run's tenant). */
  async hasAny(tenantId: string = runTenant()): Promise<boolean> {
    const [row] = (await this.db.query(`SELECT EXISTS (SELECT 1 FROM documents WHERE tenant_id = $1) AS any`, [tenantId])) as Array<{
      any: boolean;
    }>;
    return row.any;
  }

  async delete(id: string, tenantId: string): Promise<void> {
    const rows = rowsOf(await this.db.query(`DELETE FROM documents WHERE id = $1 AND tenant_id = $2 RETURNING id`, [id, tenantId]));
    if (rows.length === 0) throw new DocumentNotFoundException(id);
    await this.backend.remove(id, tenantId);
  }

  /** Hybrid retrieval through the configured backend (KNOWLEDGE_BACKEND), only over the tenant's documents. */
  async search(query: string, limit = 4, tenantId: string = runTenant()): Promise<DocumentHit[]> {
    return this.backend.search(query, limit, tenantId);
  }
}
