import { OpenAIEmbeddings } from '@langchain/openai';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';

import { AppConfig } from '../../config/app-config';
import { VectorsRepository, type VectorTable } from './vectors.repository';

/**
 * Vector similarity for hybrid search: on when embeddings are configured (EMBEDDINGS_*) and the database has
 * the `vector` columns (pgvector available). Everything here is best effort — a failed embedding leaves the
 * row to full-text and trigram search.
 */
@Injectable()
export class VectorSearch implements OnModuleInit {
  private readonly logger = new Logger(VectorSearch.name);
  private embeddings?: OpenAIEmbeddings;
  private available = false;

  constructor(
    private readonly config: AppConfig,
    private readonly repo: VectorsRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    const e = this.config.embeddings;
    if (!e) return;
    this.available = await this.repo.hasEmbeddingColumns();
    if (!this.available) {
      this.logger.warn('EMBEDDINGS_* set but the database has no pgvector: search stays full-text + trigram');
      return;
    }
    this.embeddings = new OpenAIEmbeddings({
      model: e.model,
      apiKey: e.apiKey ?? 'not-needed',
      configuration: e.baseUrl ? { baseURL: e.baseUrl } : undefined,
      maxRetries: 2,
    });
  }

  get enabled(): boolean {
    return this.available && Boolean(this.embeddings);
  }

  /** Embeds rows (id → text) of the tenant and stores the vectors. */
  async index(table: VectorTable, rows: Array<{ id: string | number; text: string }>, tenantId: string): Promise<void> {
    if (!this.enabled || rows.length === 0) return;
    try {
      const vectors = await this.embeddings!.embedDocuments(rows.map((r) => r.text.slice(0, 8000)));
      await this.repo.store(
        table,
        rows.map((r, i) => ({ id: r.id, vector: vectors[i] })),
        tenantId,
      );
    } catch (err) {
      this.logger.warn(`embedding failed; rows stay searchable by text: ${(err as Error).message}`);
    }
  }

  /** The query's vector as a pgvector literal, or null when vectors are off or the endpoint fails. */
  async queryVector(text: string): Promise<string | null> {
    if (!this.enabled) return null;
    try {
      return JSON.stringify(await this.embeddings!.embedQuery(text));
    } catch (err) {
      this.logger.warn(`query embedding failed: ${(err as Error).message}`);
      return null;
    }
  }
}
