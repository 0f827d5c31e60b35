import { Injectable } from '@nestjs/common';

import { textQuery } from '../search/hybrid-search';
import { VectorSearch } from '../vectors/vector-search.service';
import { DocumentsRepository } from './documents.repository';
import { type DocumentHit, type IndexedDocument, RetrievalBackend } from './retrieval-backend';

/**
 * The default backend: Postgres full-text (prefix terms, particles stripped) and trigram word similarity, plus
 * pgvector similarity when embeddings are configured, fused by reciprocal-rank fusion (search/hybrid-search.ts).
 */
@Injectable()
export class PostgresRetrieval extends RetrievalBackend {
  readonly name = 'postgres' as const;

  constructor(
    private readonly repo: DocumentsRepository,
    private readonly vectors: VectorSearch,
  ) {
    super();
  }

  async index(doc: IndexedDocument, tenantId: string): Promise<void> {
    if (!this.vectors.enabled) return;
    await this.vectors.index('document_chunks', await this.repo.chunkTexts(doc.document_id, tenantId), tenantId);
  }

  async remove(): Promise<void> {
    // the chunks go with their document row (ON DELETE CASCADE)
  }

  async search(query: string, limit: number, tenantId: string): Promise<DocumentHit[]> {
    const text = textQuery(query);
    const vector = await this.vectors.queryVector(query);
    if (!text.tsQuery && !vector) return [];
    return this.repo.search({ tenantId, ...text, vector, limit });
  }
}
