import { OpenAIEmbeddings } from '@langchain/openai';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { AppConfig } from '../../config/app-config';

type VectorTable = 'contract_articles' | 'document_chunks';

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
    private readonly db: DataSource,
  ) {}

  async onModuleInit(): Promise<void> {
    const e = this.config.embeddings;
    if (!e) return;
    const [row] = (await this.db.query(
      `SELECT count(*)::int AS n FROM information_schema.columns WHERE column_name = 'embedding' AND table_name IN ('contract_articles', 'document_chunks')`,
    )) as Array<{ n: number }>;
    this.available = row.n === 2;
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

  /** Embeds rows (id → text) and stores the vectors. */
  async index(table: VectorTable, rows: Array<{ id: string | number; text: string }>): Promise<void> {
    if (!this.enabled || rows.length === 0) return;
    try {
      const vectors = await this.embeddings!.embedDocuments(rows.map((r) => r.text.slice(0, 8000)));
      await this.db.query(
        `UPDATE ${table} t SET embedding = v.e::vector FROM jsonb_to_recordset($1::jsonb) AS v(id bigint, e text) WHERE t.id = v.id`,
        [JSON.stringify(rows.map((r, i) => ({ id: r.id, e: JSON.stringify(vectors[i]) })))],
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
