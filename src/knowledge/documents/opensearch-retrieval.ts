import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { Client } from '@opensearch-project/opensearch';

import { AppConfig } from '../../config/app-config';
import { type DocumentHit, type IndexedDocument, RetrievalBackend } from './retrieval-backend';

/** KNOWLEDGE_BACKEND=opensearch: chunks indexed in an OpenSearch cluster (OPENSEARCH_URL), BM25 multi-field search. */
@Injectable()
export class OpenSearchRetrieval extends RetrievalBackend implements OnModuleInit {
  readonly name = 'opensearch' as const;
  private readonly logger = new Logger(OpenSearchRetrieval.name);
  private readonly client: Client;
  private readonly indexName: string;

  constructor(config: AppConfig) {
    super();
    this.client = new Client({ node: config.knowledge.opensearchUrl, requestTimeout: 10_000, maxRetries: 2 });
    this.indexName = config.knowledge.opensearchIndex;
  }

  async onModuleInit(): Promise<void> {
    const exists = await this.client.indices.exists({ index: this.indexName });
    if (exists.body) return;
    await this.client.indices.create({
      index: this.indexName,
      body: {
        mappings: {
          properties: {
            tenant_id: { type: 'keyword' },
            document_id: { type: 'keyword' },
            title: { type: 'text' },
            source: { type: 'keyword' },
            idx: { type: 'integer' },
            heading: { type: 'text' },
            content: { type: 'text' },
          },
        },
      },
    });
    this.logger.log(`created OpenSearch index ${this.indexName}`);
  }

  async index(doc: IndexedDocument, tenantId: string): Promise<void> {
    const body = doc.chunks.flatMap((c) => [
      { index: { _index: this.indexName, _id: `${doc.document_id}:${c.index}` } },
      {
        tenant_id: tenantId,
        document_id: doc.document_id,
        title: doc.title,
        source: doc.source,
        idx: c.index,
        heading: c.heading,
        content: c.content,
      },
    ]);
    const res = await this.client.bulk({ body, refresh: 'wait_for' });
    if (res.body.errors) throw new Error('OpenSearch refused some chunks');
  }

  async remove(documentId: string, tenantId: string): Promise<void> {
    await this.client.deleteByQuery({
      index: this.indexName,
      refresh: true,
      body: { query: { bool: { filter: [{ term: { document_id: documentId } }, { term: { tenant_id: tenantId } }] } } },
    });
  }

  async search(query: string, limit: number, tenantId: string): Promise<DocumentHit[]> {
    const res = await this.client.search({
      index: this.indexName,
      body: {
        size: limit,
        query: {
          bool: {
            filter: [{ term: { tenant_id: tenantId } }],
            must: [{ multi_match: { query, fields: ['heading^2', 'title^2', 'content'], fuzziness: 'AUTO' } }],
          },
        },
      },
    });
    const hits = (res.body.hits?.hits ?? []) as Array<{ _score: number; _source: Omit<DocumentHit, 'score'> }>;
    return hits.map((h) => ({
      document_id: h._source.document_id,
      title: h._source.title,
      source: h._source.source ?? null,
      heading: h._source.heading ?? null,
      content: h._source.content,
      score: h._score,
    }));
  }
}
