import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { ORCHESTRATOR_DATA_SOURCE } from '../../database/data-source-name';
import { rowsOf } from '../../database/query-rows';
import { type HybridSearchInput, hybridSearchQuery, type HybridSearchSpec } from '../search/hybrid-search';
import { DOCUMENT_CHUNKS } from '../search/knowledge-tables';
import type { Chunk } from './chunker';
import type { DocumentHit } from './retrieval-backend';

/** Document chunks in the hybrid search: trigram over the content; ties by chunk id (insertion order). */
const CHUNK_SEARCH: HybridSearchSpec = {
  ...DOCUMENT_CHUNKS,
  trigram: [{ column: 'content' }],
  select: `p.id AS document_id, p.title, p.source, t.heading, t.content`,
  tieBreak: 't.id',
};

export interface DocumentRow {
  id: string;
  title: string;
  source: string | null;
  created_at: Date;
  chunks: number;
}

export interface ChunkRow {
  index: number;
  heading: string | null;
  content: string;
}

/** The SQL of knowledge-base documents and chunks; every statement filters on the tenant. */
@Injectable()
export class DocumentsRepository {
  constructor(@InjectDataSource(ORCHESTRATOR_DATA_SOURCE) private readonly db: DataSource) {}

  /** The document and all its chunks in one statement, or nothing. */
  async insert(d: {
    id: string;
    tenantId: string;
    title: string;
    source: string | null;
    chars: number;
    chunks: Chunk[];
    owner?: string | null;
  }): Promise<void> {
    await this.db.query(
      `WITH d AS (
         INSERT INTO documents (id, tenant_id, title, source, chars, owner) VALUES ($1, $2, $3, $4, $5, $7) RETURNING id)
       INSERT INTO document_chunks (document_id, idx, heading, content)
       SELECT d.id, c.idx, c.heading, c.content FROM d,
              jsonb_to_recordset($6::jsonb) AS c(idx int, heading text, content text)`,
      [
        d.id,
        d.tenantId,
        d.title,
        d.source,
        d.chars,
        JSON.stringify(d.chunks.map((c) => ({ idx: c.index, heading: c.heading, content: c.content }))),
        d.owner ?? null,
      ],
    );
  }

  /** The tenant's documents, newest first, each with its uploader. */
  async list(tenantId: string): Promise<Array<DocumentRow & { owner: string | null }>> {
    return this.db.query(
      `SELECT d.id, d.title, d.source, d.created_at, count(c.id)::int AS chunks, d.owner
         FROM documents d LEFT JOIN document_chunks c ON c.document_id = d.id
        WHERE d.tenant_id = $1 GROUP BY d.id ORDER BY d.created_at DESC`,
      [tenantId],
    );
  }

  /** The tenant's document with its chunks in order, or null. */
  async get(id: string, tenantId: string): Promise<(Omit<DocumentRow, 'chunks'> & { chunks: ChunkRow[] }) | null> {
    const [doc] = (await this.db.query(`SELECT id, title, source, created_at FROM documents WHERE id = $1 AND tenant_id = $2`, [
      id,
      tenantId,
    ])) as Array<Omit<DocumentRow, 'chunks'>>;
    if (!doc) return null;
    const chunks = (await this.db.query(`SELECT idx AS index, heading, content FROM document_chunks WHERE document_id = $1 ORDER BY idx`, [
      id,
    ])) as ChunkRow[];
    return { ...doc, chunks };
  }

  async hasAny(tenantId: string): Promise<boolean> {
    const [row] = (await this.db.query(`SELECT EXISTS (SELECT 1 FROM documents WHERE tenant_id = $1) AS any`, [tenantId])) as Array<{
      any: boolean;
    }>;
    return row.any;
  }

  /** The uploader of the tenant's document (null: an API key's), or undefined when the tenant has no such document. */
  async ownerOf(id: string, tenantId: string): Promise<{ owner: string | null } | undefined> {
    const [row] = rowsOf<{ owner: string | null }>(
      await this.db.query(`SELECT owner FROM documents WHERE id = $1 AND tenant_id = $2`, [id, tenantId]),
    );
    return row;
  }

  /** Whether a document of the tenant, still with this uploader, was deleted (its chunks go with it). */
  async delete(id: string, tenantId: string, owner: string | null): Promise<boolean> {
    const sql = `DELETE FROM documents WHERE id = $1 AND tenant_id = $2 AND owner IS NOT DISTINCT FROM $3 RETURNING id`;
    return rowsOf(await this.db.query(sql, [id, tenantId, owner])).length > 0;
  }

  /** Row id → heading and content of each chunk, for embedding. */
  async chunkTexts(documentId: string, tenantId: string): Promise<Array<{ id: string; text: string }>> {
    return this.db.query(
      `SELECT t.id, coalesce(t.heading, '') || E'\\n' || t.content AS text
         FROM document_chunks t JOIN documents p ON p.id = t.document_id WHERE p.tenant_id = $1 AND t.document_id = $2`,
      [tenantId, documentId],
    );
  }

  /** Hybrid search (search/hybrid-search.ts) over all the tenant's chunks. */
  async search(input: Omit<HybridSearchInput, 'where'>): Promise<DocumentHit[]> {
    const { sql, params } = hybridSearchQuery(CHUNK_SEARCH, input);
    return this.db.query(sql, params);
  }
}
