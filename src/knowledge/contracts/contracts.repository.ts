import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { ORCHESTRATOR_DATA_SOURCE } from '../../database/data-source-name';
import { rowsOf } from '../../database/query-rows';
import { type HybridSearchInput, hybridSearchQuery, type HybridSearchSpec } from '../search/hybrid-search';
import { CONTRACT_ARTICLES } from '../search/knowledge-tables';
import type { ContractArticle, ContractKind, ContractSummary, Exhibit, ParsedContract, ScoredArticle } from './contract-types';

const ARTICLE_COLUMNS = `t.contract_id, t.number, t.idx AS index, t.sub_index, t.title, t.clauses, t.text`;
/** Articles of one contract of the tenant (`t` the article, `p` its contract). */
const TENANT_ARTICLES = `FROM contract_articles t JOIN contracts p ON p.id = t.contract_id WHERE p.tenant_id = $1 AND t.contract_id = $2`;

/** Contract articles in the hybrid search: the title weighs 1.5× in trigram similarity; ties in document order. */
const ARTICLE_SEARCH: HybridSearchSpec = {
  ...CONTRACT_ARTICLES,
  trigram: [
    { column: 'title', weight: 1.5 },
    { column: 'text', weight: 1 },
  ],
  select: ARTICLE_COLUMNS,
  tieBreak: 't.position',
};

/**
 * The SQL of contracts, articles and exhibits. Every statement filters on the tenant; callers pass only ids
 * that are UUIDs (ContractsService checks), so no statement fails on a malformed id.
 */
@Injectable()
export class ContractsRepository {
  constructor(@InjectDataSource(ORCHESTRATOR_DATA_SOURCE) private readonly db: DataSource) {}

  /** The contract, its articles and exhibits in one statement: all or nothing. */
  async insert(c: {
    id: string;
    tenantId: string;
    title: string;
    kind: ContractKind;
    parsed: ParsedContract;
    owner?: string | null;
  }): Promise<void> {
    const articles = c.parsed.articles.map((a, position) => ({
      position,
      number: a.number,
      idx: a.index,
      sub_index: a.sub_index,
      title: a.title,
      clauses: a.clauses,
      text: a.text,
    }));
    const exhibits = c.parsed.exhibits.map((e) => ({ number: e.number, idx: e.index, title: e.title, content: e.content }));
    await this.db.query(
      `WITH c AS (
         INSERT INTO contracts (id, tenant_id, title, kind, preamble, closing, owner) VALUES ($1, $2, $3, $4, $5, $6, $9) RETURNING id),
       a AS (
         INSERT INTO contract_articles (contract_id, position, number, idx, sub_index, title, clauses, text)
         SELECT c.id, x.position, x.number, x.idx, x.sub_index, x.title, x.clauses, x.text
           FROM c, jsonb_to_recordset($7::jsonb) AS x(position int, number text, idx int, sub_index int, title text, clauses jsonb, text text))
       INSERT INTO contract_exhibits (contract_id, number, idx, title, content)
       SELECT c.id, e.number, e.idx, e.title, e.content FROM c, jsonb_to_recordset($8::jsonb) AS e(number text, idx int, title text, content text)`,
      [
        c.id,
        c.tenantId,
        c.title,
        c.kind,
        c.parsed.preamble,
        c.parsed.closing,
        JSON.stringify(articles),
        JSON.stringify(exhibits),
        c.owner ?? null,
      ],
    );
  }

  /** Row id → title and text of each article, for embedding. */
  async articleTexts(contractId: string, tenantId: string): Promise<Array<{ id: string; text: string }>> {
    return this.db.query(`SELECT t.id, t.title || E'\\n' || t.text AS text ${TENANT_ARTICLES}`, [tenantId, contractId]);
  }

  async header(id: string, tenantId: string): Promise<{ id: string; title: string; kind: ContractKind } | undefined> {
    const [row] = (await this.db.query(`SELECT id, title, kind FROM contracts WHERE id = $1 AND tenant_id = $2`, [id, tenantId])) as Array<{
      id: string;
      title: string;
      kind: ContractKind;
    }>;
    return row;
  }

  async exists(id: string, tenantId: string): Promise<boolean> {
    return rowsOf(await this.db.query(`SELECT 1 FROM contracts WHERE id = $1 AND tenant_id = $2`, [id, tenantId])).length > 0;
  }

  /** The tenant's contracts, newest first, each with its uploader (for the policy's filter; not shown). */
  async list(tenantId: string, kind: ContractKind | undefined): Promise<Array<ContractSummary & { owner: string | null }>> {
    return this.db.query(
      `SELECT c.id AS contract_id, c.title, c.kind, count(a.id)::int AS articles, c.owner FROM contracts c LEFT JOIN contract_articles a ON a.contract_id = c.id
        WHERE c.tenant_id = $1 AND ($2::text IS NULL OR c.kind = $2) GROUP BY c.id ORDER BY c.created_at DESC`,
      [tenantId, kind ?? null],
    );
  }

  /** The uploader of the tenant's contract (null: an API key's), or undefined when the tenant has no such contract. */
  async ownerOf(id: string, tenantId: string): Promise<{ owner: string | null } | undefined> {
    const [row] = rowsOf<{ owner: string | null }>(
      await this.db.query(`SELECT owner FROM contracts WHERE id = $1 AND tenant_id = $2`, [id, tenantId]),
    );
    return row;
  }

  /** Whether a contract of the tenant, still with this uploader, was deleted (articles and exhibits go with it). */
  async delete(id: string, tenantId: string, owner: string | null): Promise<boolean> {
    const sql = `DELETE FROM contracts WHERE id = $1 AND tenant_id = $2 AND owner IS NOT DISTINCT FROM $3 RETURNING id`;
    return rowsOf(await this.db.query(sql, [id, tenantId, owner])).length > 0;
  }

  /** Articles in document order; `indexes` null → all, else those with these main numbers. */
  async articles(contractId: string, tenantId: string, indexes: number[] | null): Promise<ContractArticle[]> {
    return this.db.query(`SELECT ${ARTICLE_COLUMNS} ${TENANT_ARTICLES} AND ($3::int[] IS NULL OR t.idx = ANY($3)) ORDER BY t.position`, [
      tenantId,
      contractId,
      indexes,
    ]);
  }

  /** Articles whose title contains, or is word-similar (> 0.4) to, one of `titles`; document order. */
  async articlesByTitle(contractId: string, tenantId: string, titles: string[]): Promise<ContractArticle[]> {
    return this.db.query(
      `SELECT DISTINCT ON (t.position) ${ARTICLE_COLUMNS}
         FROM contract_articles t JOIN contracts p ON p.id = t.contract_id CROSS JOIN unnest($3::text[]) q(q)
        WHERE p.tenant_id = $1 AND t.contract_id = $2
          AND (t.title ILIKE '%' || q.q || '%' OR word_similarity(q.q, t.title) > 0.4)
        ORDER BY t.position`,
      [tenantId, contractId, titles],
    );
  }

  async exhibits(contractId: string, tenantId: string, indexes: number[] | null): Promise<Exhibit[]> {
    return this.db.query(
      `SELECT e.number, e.idx AS index, e.title, e.content
         FROM contract_exhibits e JOIN contracts p ON p.id = e.contract_id
        WHERE p.tenant_id = $1 AND e.contract_id = $2 AND ($3::int[] IS NULL OR e.idx = ANY($3)) ORDER BY e.idx`,
      [tenantId, contractId, indexes],
    );
  }

  /** Hybrid search (search/hybrid-search.ts) over one contract's articles. */
  async search(contractId: string, input: Omit<HybridSearchInput, 'where'>): Promise<ScoredArticle[]> {
    const { sql, params } = hybridSearchQuery(ARTICLE_SEARCH, { ...input, where: { contract_id: contractId } });
    return this.db.query(sql, params);
  }
}
