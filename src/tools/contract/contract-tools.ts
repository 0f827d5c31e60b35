import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { z } from 'zod';

import { tenantOf } from '../../auth/tenant';
import { relevantArticles } from '../../knowledge/contracts/contract-topics';
import type { ScoredArticle } from '../../knowledge/contracts/contract-types';
import type { ContractsService } from '../../knowledge/contracts/contracts.service';

/** What a tool found: articles with their text, search hits, or the structure. */
export interface CollectedInfo {
  tool: string;
  summary: string;
  articles?: Array<{ number: string; index: number; title: string; text: string; contract_id: string; standard?: boolean }>;
  exhibits?: Array<{ number: string; title: string; content: string }>;
  hits?: Array<{ number: string; index: number; title: string; snippet: string }>;
  /** the contract's exhibits by number and title (get_contract_structure) */
  exhibit_titles?: Array<{ number: string; title: string }>;
}

/** the tool's run config: its run context says whose contracts these are */
type Cfg = { configurable?: Record<string, unknown> };
const num = z.union([z.number(), z.string()]).transform((v) => Number(String(v).replace(/[^\d]/g, '')));
const nums = z.array(num).default([]);

/** The seed's five contract tools; `contract_id` is supplied by the executor, never by the model. Each returns CollectedInfo. */
export function createContractTools(contracts: ContractsService): StructuredToolInterface[] {
  const snippet = (t: string) => t.replace(/\s+/g, ' ').slice(0, 120);
  return [
    tool(
      async ({ contract_id }: { contract_id: string }, config?: Cfg): Promise<CollectedInfo> => {
        const c = await contracts.get(contract_id, tenantOf(config));
        return {
          tool: 'get_contract_structure',
          summary: `${c.articles.length}개 조, ${c.exhibits.length}개 별지`,
          hits: c.articles.map((a) => ({ number: a.number, index: a.index, title: a.title, snippet: '' })),
          exhibit_titles: c.exhibits.map((e) => ({ number: e.number, title: e.title })),
        };
      },
      {
        name: 'get_contract_structure',
        description: '사용자 계약서의 구조(조 목록, 별지 목록)를 파악합니다.',
        schema: z.object({ contract_id: z.string() }),
      },
    ),
    tool(
      async (
        {
          contract_id,
          topics,
        }: {
          contract_id: string;
          topics: Array<{ topic_name: string; queries: string[] }>;
        },
        config?: Cfg,
      ): Promise<CollectedInfo> => {
        const seen = new Map<string, { number: string; index: number; title: string; snippet: string; score: number }>();
        for (const topic of topics) {
          const found: ScoredArticle[] = [];
          for (const q of [topic.topic_name, ...topic.queries])
            found.push(...(await contracts.searchArticles(contract_id, q, 5, tenantOf(config))));
          // the search ranks every article that shares a word; only those about the topic are listed
          for (const h of relevantArticles([topic.topic_name, ...topic.queries].join(' '), found)) {
            const prev = seen.get(h.number);
            if (!prev || prev.score < h.score)
              seen.set(h.number, { number: h.number, index: h.index, title: h.title, snippet: snippet(h.text), score: h.score });
          }
        }
        const hits = [...seen.values()].sort((a, b) => b.score - a.score).slice(0, 5);
        return { tool: 'hybrid_search', summary: `${hits.length}개 조 검색됨`, hits: hits.map(({ score: _s, ...h }) => h) };
      },
      {
        name: 'hybrid_search',
        description: '키워드 기반 하이브리드 검색으로 관련 조항을 찾습니다.',
        schema: z.object({
          contract_id: z.string(),
          topics: z.array(z.object({ topic_name: z.string(), queries: z.array(z.string()).default([]) })).min(1),
        }),
      },
    ),
    tool(
      async (
        {
          contract_id,
          article_numbers,
          exhibit_numbers,
        }: {
          contract_id: string;
          article_numbers: number[];
          exhibit_numbers: number[];
        },
        config?: Cfg,
      ): Promise<CollectedInfo> => {
        const [articles, exhibits] = await Promise.all([
          article_numbers.length ? contracts.articles(contract_id, article_numbers, tenantOf(config)) : Promise.resolve([]),
          exhibit_numbers.length ? contracts.exhibits(contract_id, exhibit_numbers, tenantOf(config)) : Promise.resolve([]),
        ]);
        return { tool: 'get_article_by_index', summary: `${articles.length}개 조, ${exhibits.length}개 별지 조회`, articles, exhibits };
      },
      {
        name: 'get_article_by_index',
        description: '조 번호 또는 별지 번호로 직접 조회합니다.',
        schema: z.object({ contract_id: z.string(), article_numbers: nums, exhibit_numbers: nums }),
      },
    ),
    tool(
      async ({ contract_id, titles }: { contract_id: string; titles: string[] }, config?: Cfg): Promise<CollectedInfo> => {
        const articles = await contracts.articlesByTitle(contract_id, titles, tenantOf(config));
        return { tool: 'get_article_by_title', summary: `${articles.length}개 조 조회`, articles };
      },
      {
        name: 'get_article_by_title',
        description: '조 제목으로 조항을 검색합니다.',
        schema: z.object({ contract_id: z.string(), titles: z.array(z.string()).min(1) }),
      },
    ),
    tool(
      async (
        {
          contract_id,
          user_article_numbers,
          topic,
          standard_contract_id,
        }: {
          contract_id: string;
          user_article_numbers: number[];
          topic?: string;
          standard_contract_id?: string;
        },
        config?: Cfg,
      ): Promise<CollectedInfo> => {
        const found = await contracts.standardFor(
          contract_id,
          { articleIndexes: user_article_numbers, topic, standardId: standard_contract_id },
          tenantOf(config),
        );
        if (!found) return { tool: 'lookup_standard_contract', summary: '등록된 표준계약서가 없음', articles: [] };
        const articles = found.matches.map((m) => ({
          ...m.standard,
          title: `${m.standard.title} (표준계약서${m.user_article ? `, ${m.user_article}에 대응` : ''})`,
          standard: true,
        }));
        return { tool: 'lookup_standard_contract', summary: `표준계약서 ${articles.length}개 조 대응`, articles };
      },
      {
        name: 'lookup_standard_contract',
        description:
          '표준계약서 조문을 조회합니다 (사용자 조 번호로 매칭하거나 주제로 검색; standard_contract_id가 없으면 가장 최근 표준계약서).',
        schema: z.object({
          contract_id: z.string(),
          user_article_numbers: nums,
          topic: z.string().optional(),
          standard_contract_id: z.string().optional(),
        }),
      },
    ),
  ];
}

/** Common model mistakes in tool arguments, mapped to the real parameters (seed: `_map_tool_parameters`). */
export function mapToolParameters(tool: string, args: Record<string, unknown>): Record<string, unknown> {
  const a = { ...args };
  const list = (v: unknown) => (Array.isArray(v) ? v : v === undefined || v === null || v === '' ? [] : [v]);
  if (tool === 'hybrid_search') {
    const q = a.topics ?? a.query ?? a.queries ?? a.keywords;
    a.topics = list(q).map((t) => (typeof t === 'string' ? { topic_name: t, queries: [t] } : t));
    delete a.query;
    delete a.queries;
    delete a.keywords;
  }
  if (tool === 'get_article_by_title') {
    a.titles = list(a.titles ?? a.title);
    delete a.title;
  }
  if (tool === 'get_article_by_index') {
    a.article_numbers = list(a.article_numbers ?? a.articles ?? a.article_number ?? a.article);
    a.exhibit_numbers = list(a.exhibit_numbers ?? a.exhibits ?? a.exhibit_number ?? a.exhibit);
    for (const k of ['articles', 'article_number', 'article', 'exhibits', 'exhibit_number', 'exhibit']) delete a[k];
  }
  if (tool === 'lookup_standard_contract') {
    a.user_article_numbers = list(a.user_article_numbers ?? a.article_numbers ?? a.articles);
    delete a.article_numbers;
    delete a.articles;
  }
  delete a.contract_id;
  return a;
}

/** `{tool_name}:{sorted args}` — the duplicate guard's key. */
export function toolSignature(tool: string, args: Record<string, unknown>): string {
  const sorted = Object.keys(args)
    .sort()
    .map((k) => [k, args[k]]);
  return `${tool}:${JSON.stringify(sorted)}`;
}
