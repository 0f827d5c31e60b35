import { randomUUID } from 'node:crypto';

import { Injectable } from '@nestjs/common';

import { type AuthFilters, matchesFilters } from '../../auth/auth-filters';
import { currentTenant, currentUser, DEFAULT_TENANT, isServerIssuedId } from '../../auth/tenant';
import { DomainException } from '../../core/errors';
import { chunkText } from './chunker';
import { DocumentsRepository } from './documents.repository';
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
 * The knowledge base: documents and their overlapping chunks in Postgres (the record, DocumentsRepository), retrieval through
 * the configured backend — Postgres hybrid search (default) or OpenSearch.
 */
@Injectable()
export class DocumentsService {
  constructor(
    private readonly repo: DocumentsRepository,
    private readonly backend: RetrievalBackend,
  ) {}

  async ingest(doc: { title: string; content: string; source?: string }, tenantId: string): Promise<DocumentView> {
    const chunks = chunkText(doc.content);
    if (chunks.length === 0) throw new DomainException('EMPTY_DOCUMENT', 'document has no text', 422);
    const id = randomUUID();
    // its uploader (a user's; an API key's has none) is who may delete it besides an admin
    const owner = currentUser() ?? null;
    await this.repo.insert({ id, tenantId, title: doc.title, source: doc.source ?? null, chars: doc.content.length, chunks, owner });
    await this.backend.index({ document_id: id, title: doc.title, source: doc.source ?? null, chunks }, tenantId);
    return { document_id: id, title: doc.title, source: doc.source ?? null, chunks: chunks.length };
  }

  /** The tenant's documents the policy's filter (`documents:search`, matched against `{ owner }`) lets through. */
  async list(tenantId: string, filters?: AuthFilters): Promise<DocumentView[]> {
    const rows = (await this.repo.list(tenantId)).filter((r) => matchesFilters({ owner: r.owner }, filters));
    return rows.map((r) => ({
      document_id: r.id,
      title: r.title,
      source: r.source,
      chunks: r.chunks,
      created_at: r.created_at.toISOString(),
    }));
  }

  /** A document with its parsed chunks (heading and text, in order); another tenant's id is DOCUMENT_NOT_FOUND. */
  async get(id: string, tenantId: string, filters?: AuthFilters) {
    const owner = filters && isServerIssuedId(id) ? await this.repo.ownerOf(id, tenantId) : undefined;
    const hidden = filters !== undefined && (!owner || !matchesFilters({ owner: owner.owner }, filters));
    const doc = isServerIssuedId(id) && !hidden ? await this.repo.get(id, tenantId) : null;
    if (!doc) throw new DocumentNotFoundException(id.slice(0, 128));
    return { document_id: doc.id, title: doc.title, source: doc.source, created_at: doc.created_at.toISOString(), chunks: doc.chunks };
  }

  /** Whether the tenant has documents (inside a run: the run's tenant). */
  async hasAny(tenantId: string = runTenant()): Promise<boolean> {
    return this.repo.hasAny(tenantId);
  }

  /**
   * Deletes the tenant's document when the policy's filter (auth/resource-access.ts `documents:delete`, matched
   * against `{ owner }`) lets it through; else, as for another tenant's, DOCUMENT_NOT_FOUND and nothing deleted.
   */
  async delete(id: string, tenantId: string, filters?: AuthFilters): Promise<void> {
    const row = isServerIssuedId(id) ? await this.repo.ownerOf(id, tenantId) : undefined;
    const allowed = row !== undefined && matchesFilters({ owner: row.owner }, filters);
    if (!allowed || !(await this.repo.delete(id, tenantId, row.owner))) throw new DocumentNotFoundException(id.slice(0, 128));
    await this.backend.remove(id, tenantId);
  }

  /** Hybrid retrieval through the configured backend (KNOWLEDGE_BACKEND), only over the tenant's documents. */
  async search(query: string, limit = 4, tenantId: string = runTenant()): Promise<DocumentHit[]> {
    return this.backend.search(query, limit, tenantId);
  }
}
