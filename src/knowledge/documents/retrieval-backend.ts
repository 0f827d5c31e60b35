import type { Chunk } from './chunker';

export interface DocumentHit {
  document_id: string;
  title: string;
  source: string | null;
  heading: string | null;
  content: string;
  score: number;
}

export interface IndexedDocument {
  document_id: string;
  title: string;
  source: string | null;
  chunks: Chunk[];
}

/**
 * Where knowledge-base retrieval happens (KNOWLEDGE_BACKEND, like the seed's memory | faiss | opensearch table).
 * Postgres keeps the documents and chunks either way; a backend indexes and searches them.
 */
export abstract class RetrievalBackend {
  abstract readonly name: 'postgres' | 'opensearch';
  abstract index(doc: IndexedDocument, tenantId: string): Promise<void>;
  abstract remove(documentId: string, tenantId: string): Promise<void>;
  abstract search(query: string, limit: number, tenantId: string): Promise<DocumentHit[]>;
}
