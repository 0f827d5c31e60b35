import { randomUUID } from 'node:crypto';

import { Injectable } from '@nestjs/common';

import { type AuthFilters, matchesFilters } from '../../auth/auth-filters';
import { currentUser, isServerIssuedId } from '../../auth/tenant';
import { DomainException } from '../../core/errors';
import { textQuery } from '../search/hybrid-search';
import { VectorSearch } from '../vectors/vector-search.service';
import { matchArticles } from './article-matching';
import { parseContract } from './contract-parser';
import type { ContractArticle, ContractKind, ContractSummary, ContractView, Exhibit, ScoredArticle } from './contract-types';
import { ContractsRepository } from './contracts.repository';

export type { ContractArticle, ContractKind, ContractSummary, ContractView, Exhibit, ScoredArticle } from './contract-types';

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

/**
 * Contracts as data: parsed into articles and exhibits, stored (ContractsRepository), searched hybrid (FTS +
 * trigram + vectors, RRF; search/hybrid-search.ts). Ids that are not UUIDs cannot exist and never reach SQL.
 */
@Injectable()
export class ContractsService {
  constructor(
    private readonly repo: ContractsRepository,
    private readonly vectors: VectorSearch,
  ) {}

  async ingest(input: { title: string; content: string; kind?: ContractKind }, maxChars: number, tenantId: string): Promise<ContractView> {
    if (input.content.length > maxChars) throw new ContractTooLargeException(maxChars);
    const parsed = parseContract(input.content); // ContractParseError → 422, nothing written
    const id = randomUUID();
    // its uploader (a user's; an API key's has none) is who may delete it besides an admin
    await this.repo.insert({ id, tenantId, title: input.title, kind: input.kind ?? 'user', parsed, owner: currentUser() ?? null });
    if (this.vectors.enabled) await this.vectors.index('contract_articles', await this.repo.articleTexts(id, tenantId), tenantId);
    return this.get(id, tenantId);
  }

  /** CONTRACT_NOT_FOUND unless the tenant has this contract (any id that is not a UUID cannot exist). */
  async assertExists(id: string, tenantId: string): Promise<void> {
    if (!(await this.owns(id, tenantId))) throw new ContractNotFoundException(id.slice(0, 128));
  }

  async get(id: string, tenantId: string): Promise<ContractView> {
    const c = isServerIssuedId(id) ? await this.repo.header(id, tenantId) : undefined;
    if (!c) throw new ContractNotFoundException(id.slice(0, 128));
    const [articles, exhibits] = await Promise.all([this.repo.articles(id, tenantId, null), this.repo.exhibits(id, tenantId, null)]);
    return { contract_id: c.id, title: c.title, kind: c.kind, articles, exhibits };
  }

  /** The tenant's contracts the policy's filter (`contracts:search`, matched against `{ owner }`) lets through. */
  async list(kind: ContractKind | undefined, tenantId: string, filters?: AuthFilters): Promise<ContractSummary[]> {
    const rows = await this.repo.list(tenantId, kind);
    return rows.filter((r) => matchesFilters({ owner: r.owner }, filters)).map(({ owner: _owner, ...summary }) => summary);
  }

  /** CONTRACT_NOT_FOUND unless the tenant has the contract and the policy's filter (`contracts:read`) lets it through. */
  async visible(id: string, tenantId: string, filters: AuthFilters | undefined): Promise<ContractView> {
    const row = isServerIssuedId(id) ? await this.repo.ownerOf(id, tenantId) : undefined;
    if (!row || !matchesFilters({ owner: row.owner }, filters)) throw new ContractNotFoundException(id.slice(0, 128));
    return this.get(id, tenantId);
  }

  /**
   * Deletes the tenant's contract when the policy's filter (auth/resource-access.ts `contracts:delete`, matched
   * against `{ owner }`) lets it through; else, as for another tenant's, CONTRACT_NOT_FOUND and nothing deleted.
   */
  async delete(id: string, tenantId: string, filters?: AuthFilters): Promise<void> {
    const row = isServerIssuedId(id) ? await this.repo.ownerOf(id, tenantId) : undefined;
    const allowed = row !== undefined && matchesFilters({ owner: row.owner }, filters);
    if (!allowed || !(await this.repo.delete(id, tenantId, row.owner))) throw new ContractNotFoundException(id.slice(0, 128));
  }

  /**
   * Hybrid search over a contract's articles: full-text (title weighs more), trigram similarity and — when
   * embeddings and pgvector are there — vector similarity, fused by reciprocal-rank fusion.
   */
  async searchArticles(contractId: string, query: string, limit: number, tenantId: string): Promise<ScoredArticle[]> {
    if (!(await this.owns(contractId, tenantId))) return [];
    const text = textQuery(query);
    const vector = await this.vectors.queryVector(query);
    if (!text.tsQuery && !vector) return [];
    return this.repo.search(contractId, { tenantId, ...text, vector, limit });
  }

  async articles(contractId: string, indexes: number[], tenantId: string): Promise<ContractArticle[]> {
    return isServerIssuedId(contractId) ? this.repo.articles(contractId, tenantId, indexes) : [];
  }

  async exhibits(contractId: string, indexes: number[] | null, tenantId: string): Promise<Exhibit[]> {
    return isServerIssuedId(contractId) ? this.repo.exhibits(contractId, tenantId, indexes) : [];
  }

  async articlesByTitle(contractId: string, titles: string[], tenantId: string): Promise<ContractArticle[]> {
    return isServerIssuedId(contractId) ? this.repo.articlesByTitle(contractId, tenantId, titles) : [];
  }

  /** The standard contract's articles matching the user's articles (by title similarity) or a topic. */
  async standardFor(
    contractId: string,
    q: { articleIndexes?: number[]; topic?: string; standardId?: string },
    tenantId: string,
  ): Promise<{
    standard_contract_id: string;
    title: string;
    matches: Array<{ user_article: string | null; standard: ContractArticle; score: number }>;
  } | null> {
    const standards = await this.list('standard', tenantId);
    if (standards.length === 0 || !(await this.owns(contractId, tenantId))) return null;
    // a named standard contract (of this tenant), else the newest
    const standard = await this.get(q.standardId ?? standards[0].contract_id, tenantId);
    if (standard.kind !== 'standard') throw new ContractNotFoundException(standard.contract_id);
    if (q.topic) {
      const hits = await this.searchArticles(standard.contract_id, q.topic, 3, tenantId);
      return {
        standard_contract_id: standard.contract_id,
        title: standard.title,
        matches: hits.map((h) => ({ user_article: null, standard: h, score: h.score })),
      };
    }
    const user = await this.articles(contractId, q.articleIndexes ?? [], tenantId);
    const matches = matchArticles(user, standard.articles).filter((m) => m.standard);
    return {
      standard_contract_id: standard.contract_id,
      title: standard.title,
      matches: matches.map((m) => ({ user_article: m.user.number, standard: m.standard!, score: m.score })),
    };
  }

  /** Whether the contract is the tenant's. */
  private async owns(contractId: string, tenantId: string): Promise<boolean> {
    return isServerIssuedId(contractId) && this.repo.exists(contractId, tenantId);
  }
}
