import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { ORCHESTRATOR_DATA_SOURCE } from '../../database/data-source-name';
import { CONTRACT_ARTICLES, DOCUMENT_CHUNKS, type OwnedTable } from '../search/knowledge-tables';

export type VectorTable = OwnedTable['table'];

const TABLES: Record<VectorTable, OwnedTable> = { contract_articles: CONTRACT_ARTICLES, document_chunks: DOCUMENT_CHUNKS };

/** The SQL of embeddings: whether the `embedding` columns exist (pgvector) and storing vectors on the tenant's rows. */
@Injectable()
export class VectorsRepository {
  constructor(@InjectDataSource(ORCHESTRATOR_DATA_SOURCE) private readonly db: DataSource) {}

  /** Both knowledge tables have an `embedding` column (the vectors migration found pgvector). */
  async hasEmbeddingColumns(): Promise<boolean> {
    const [row] = (await this.db.query(
      `SELECT count(*)::int AS n FROM information_schema.columns WHERE column_name = 'embedding' AND table_name IN ('contract_articles', 'document_chunks')`,
    )) as Array<{ n: number }>;
    return row.n === 2;
  }

  /** Stores vectors (row id → JSON array) on rows of `table` that belong to the tenant; other ids are ignored. */
  async store(table: VectorTable, vectors: Array<{ id: string | number; vector: number[] }>, tenantId: string): Promise<void> {
    const t = TABLES[table];
    await this.db.query(
      `UPDATE ${t.table} t SET embedding = v.e::vector
         FROM jsonb_to_recordset($1::jsonb) AS v(id bigint, e text), ${t.owner} p
        WHERE t.id = v.id AND p.id = t.${t.ownerKey} AND p.tenant_id = $2`,
      [JSON.stringify(vectors.map((r) => ({ id: r.id, e: JSON.stringify(r.vector) }))), tenantId],
    );
  }
}
