import { randomUUID } from 'node:crypto';

import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { DomainException } from '../../common/domain.exception';
import { rowsOf } from '../../database/query-rows';
import { prefixTsQuery, searchTerms } from '../documents/search-query';
import { VectorSearch } from '../vectors/vector-search.service';
import { matchArticles } from './article-matching';
import { parseContract } from './contract-parser';

export type ContractKind = 'user' | 'standard';

export interface ArticleView {
  contract_id: string;
  number: string;
  index: number;
  sub_index: number | null;
  title: string;
  clauses: string[];
  text: string;
}

export interface ExhibitView {
  number: string;
  index: number;
  title: string;
  content: string;
}

export interface ContractView {
  contract_id: string;
  title: string;
  kind: ContractKind;
  articles: ArticleView[];
  exhibits: ExhibitView[];
}

export class ContractNotFoundException extends DomainException {
  constructor(id: string) {
    super('CONTRACT_NOT_FOUND', `contract ${id} does not exist`, 404);
  }
}

export class ContractTooLargeException extends DomainException {
  constructor(limit: number) {
    super('CONTRACT_TOO_LARGE', `the contract is larger than ${limit} characters (MAX_CONTRACT_CHARS)`, 413);
  }
}

const RRF_K = 60;
const ARTICLE_COLUMNS = `contract_id, number, idx AS index, sub_index, title, clauses, text`;

/** Contracts as data: parsed into articles and exhibits, stored in one statement, searched hybrid (FTS + trigram, RRF). */
@Injectable()
export class ContractsService {
  constructor(
    private readonly db: DataSource,
    private readonly vectors: VectorSearch,
  ) {}

  async ingest(
    input: { title: string; content: string; kind?: ContractKind },
    maxChars: number,
    tenantId = 'default',
  ): Promise<ContractView> {
    if (input.content.length > maxChars) throw new ContractTooLargeException(maxChars);
    const parsed = parseContract(input.content); // ContractParseError → 422, nothing written
    const id = randomUUID();
    const kind = input.kind ?? 'user';
    const articles = parsed.articles.map((a, position) => ({
      position,
      number: a.number,
      idx: a.index,
      sub_index: a.sub_index,
      title: a.title,
      clauses: a.clauses,
      text: a.text,
    }));
    const exhibits = parsed.exhibits.map((e) => ({ number: e.number, idx: e.index, title: e.title, content: e.content }));
    await this.db.query(
      `WITH c AS (
         INSERT INTO contracts (id, tenant_id, title, kind, preamble, closing) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id),
       a AS (
         INSERT INTO contract_articles (contract_id, position, number, idx, sub_index, title, clauses, text)
         SELECT c.id, x.position, x.number, x.idx, x.sub_index, x.title, x.clauses, x.text
           FROM c, jsonb_to_recordset($7::jsonb) AS x(position int, number text, idx int, sub_index int, title text, clauses jsonb, text text))
       INSERT INTO contract_exhibits (contract_id, number, idx, title, content)
       SELECT c.id, e.number, e.idx, e.title, e.content FROM c, jsonb_to_recordset($8::jsonb) AS e(number text, idx int, title text, content text)`,
      [id, tenantId, input.title, kind, parsed.preamble, parsed.closing, JSON.stringify(articles), JSON.stringify(exhibits)],
    );
    if (this.vectors.enabled) {
      const rows = (await this.db.query(`SELECT id, title || E'\n' || text AS text FROM contract_articles WHERE contract_id = $1`, [
        id,
      ])) as Array<{ id: string; text: string }>;
      await this.vectors.index('contract_articles', rows);
    }
    return this.get(id, tenantId);
  }

  async get(id: string, tenantId = 'default'): Promise<ContractView> {
    const [c] = (await this.db.query(`SELECT id, title, kind FROM contracts WHERE id = $1 AND tenant_id = $2`, [id, tenantId])) as Array<{
      id: string;
      title: string;
      kind: ContractKind;
    }>;
    if (!c) throw new ContractNotFoundException(id);
    const [articles, exhibits] = await Promise.all([
      this.db.query(`SELECT ${ARTICLE_COLUMNS} FROM contract_articles WHERE contract_id = $1 ORDER BY position`, [id]),
      this.exhibits(id, null),
    ]);
    return { contract_id: c.id, title: c.title, kind: c.kind, articles: articles as ArticleView[], exhibits };
  }

  async list(
    kind?: ContractKind,
    tenantId = 'default',
  ): Promise<Array<{ contract_id: string; title: string; kind: ContractKind; articles: number }>> {
    return this.db.query(
      `SELECT c.id AS contract_id, c.title, c.kind, count(a.id)::int AS articles FROM contracts c LEFT JOIN contract_articles a ON a.contract_id = c.id
        WHERE c.tenant_id = $1 AND ($2::text IS NULL OR c.kind = $2) GROUP BY c.id ORDER BY c.created_at DESC`,
      [tenantId, kind ?? null],
    );
  }

  async delete(id: string, tenantId = 'default'): Promise<void> {
    const rows = rowsOf(await this.db.query(`DELETE FROM contracts WHERE id = $1 AND tenant_id = $2 RETURNING id`, [id, tenantId]));
    if (rows.length === 0) throw new ContractNotFoundException(id);
  }

  /**
   * Hybrid search over a contract's articles: full-text (title weighs more), trigram similarity and — when
   * embeddings and pgvector are there — vector similarity, fused by reciprocal-rank fusion.
   */
  async searchArticles(contractId: string, query: string, limit = 5): Promise<Array<ArticleView & { score: number }>> {
    const terms = searchTerms(query);
    const tsq = prefixTsQuery(terms) ?? '';
    const vector = await this.vectors.queryVector(query);
    if (!tsq && !vector) return [];
    return this.db.query(
      `WITH fts AS (
         SELECT id, row_number() OVER (ORDER BY ts_rank(tsv, to_tsquery('simple', $2)) DESC) AS r
           FROM contract_articles WHERE contract_id = $1 AND $2 <> '' AND tsv @@ to_tsquery('simple', $2) LIMIT 50),
       tri AS (
         SELECT id, row_number() OVER (ORDER BY greatest(word_similarity($3, title) * 1.5, word_similarity($3, text)) DESC) AS r
           FROM contract_articles WHERE contract_id = $1 AND ($3 <% title OR $3 <% text) LIMIT 50),
       ${
         vector
           ? `vec AS (
         SELECT id, row_number() OVER (ORDER BY embedding <=> $5::vector) AS r
           FROM contract_articles WHERE contract_id = $1 AND embedding IS NOT NULL ORDER BY embedding <=> $5::vector LIMIT 20),`
           : ''
       }
       fused AS (SELECT id, sum(1.0 / (${RRF_K} + r)) AS score
                   FROM (SELECT * FROM fts UNION ALL SELECT * FROM tri${vector ? ' UNION ALL SELECT * FROM vec' : ''}) x GROUP BY id)
       SELECT ${ARTICLE_COLUMNS}, f.score::float AS score FROM fused f JOIN contract_articles a ON a.id = f.id
        ORDER BY f.score DESC, a.position LIMIT $4`,
      [contractId, tsq, terms.join(' '), limit, ...(vector ? [vector] : [])],
    );
  }

  async articles(contractId: string, indexes: number[]): Promise<ArticleView[]> {
    return this.db.query(`SELECT ${ARTICLE_COLUMNS} FROM contract_articles WHERE contract_id = $1 AND idx = ANY($2) ORDER BY position`, [
      contractId,
      indexes,
    ]);
  }

  async exhibits(contractId: string, indexes: number[] | null): Promise<ExhibitView[]> {
    return this.db.query(
      `SELECT number, idx AS index, title, content FROM contract_exhibits WHERE contract_id = $1 AND ($2::int[] IS NULL OR idx = ANY($2)) ORDER BY idx`,
      [contractId, indexes],
    );
  }

  async articlesByTitle(contractId: string, titles: string[]): Promise<ArticleView[]> {
    return this.db.query(
      `SELECT DISTINCT ON (a.position) ${ARTICLE_COLUMNS.split(', ')
        .map((c) => `a.${c}`)
        .join(', ')}
         FROM contract_articles a, unnest($2::text[]) t(q)
        WHERE a.contract_id = $1 AND (a.title ILIKE '%' || t.q || '%' OR word_similarity(t.q, a.title) > 0.4)
        ORDER BY a.position`,
      [contractId, titles],
    );
  }

  /** The standard contract's articles matching the user's articles (by title similarity) or a topic. */
  async standardFor(
    contractId: string,
    q: { articleIndexes?: number[]; topic?: string; standardId?: string },
  ): Promise<{
    standard_contract_id: string;
    title: string;
    matches: Array<{ user_article: string | null; standard: ArticleView; score: number }>;
  } | null> {
    const standards = await this.list('standard');
    if (standards.length === 0) return null;
    // a named standard contract, else the newest
    const standard = await this.get(q.standardId ?? standards[0].contract_id);
    if (standard.kind !== 'standard') throw new ContractNotFoundException(standard.contract_id);
    if (q.topic) {
      const hits = await this.searchArticles(standard.contract_id, q.topic, 3);
      return {
        standard_contract_id: standard.contract_id,
        title: standard.title,
        matches: hits.map((h) => ({ user_article: null, standard: h, score: h.score })),
      };
    }
    const user = await this.articles(contractId, q.articleIndexes ?? []);
    const matches = matchArticles(user, standard.articles).filter((m) => m.standard);
    return {
      standard_contract_id: standard.contract_id,
      title: standard.title,
      matches: matches.map((m) => ({ user_article: m.user.number, standard: m.standard!, score: m.score })),
    };
  }
}
