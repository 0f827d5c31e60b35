import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { z } from 'zod';

import { asString, clip, field, requestJson } from './http-json';
import { ToolError } from './tool-error';
import { type Availability, type NetworkOptions, networkToolAvailability, resolveNetwork } from './types';

export interface WebSearchOptions {
  /** Tavily API key (`tvly-…`); without it the tool is unavailable. Sent as `Authorization: Bearer`. */
  apiKey?: string;
  /** Default `https://api.tavily.com`; `/search` is appended. */
  baseUrl?: string;
  /** Tavily `search_depth`. Default `basic` (advanced costs two credits). */
  searchDepth?: 'basic' | 'advanced';
  network?: NetworkOptions;
}

const DEFAULT_BASE_URL = 'https://api.tavily.com';
const MAX_SNIPPET = 700;

export function webSearchAvailability(options: WebSearchOptions = {}): Availability {
  if (!URL.canParse(options.baseUrl ?? DEFAULT_BASE_URL)) return { available: false, reason: 'invalid Tavily base URL' };
  return networkToolAvailability(options.network, { value: options.apiKey, what: 'Tavily API key' });
}

/** Formats a Tavily `/search` response: optional short answer, then numbered title / URL / snippet. */
export function formatTavily(query: string, data: unknown): string {
  const raw = field(data, 'results');
  const results = (Array.isArray(raw) ? raw : []).flatMap((r: unknown) => {
    const url = asString(field(r, 'url'));
    if (!url) return [];
    return [{ url, title: asString(field(r, 'title')) || url, content: asString(field(r, 'content')) ?? '' }];
  });
  const answer = asString(field(data, 'answer'))?.trim();
  if (results.length === 0 && !answer) return `No web results found for "${query}".`;
  const lines = results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}\n   ${clip(r.content.replace(/\s+/g, ' ').trim(), MAX_SNIPPET)}`);
  return [answer ? `Answer: ${answer}` : undefined, ...lines].filter(Boolean).join('\n\n');
}

export async function webSearch(query: string, maxResults: number, options: WebSearchOptions, signal?: AbortSignal): Promise<string> {
  if (!options.apiKey) throw new ToolError('web_search is not configured (no API key)');
  const base = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const body = JSON.stringify({
    query,
    max_results: maxResults,
    search_depth: options.searchDepth ?? 'basic',
    include_answer: true,
  });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` };
  const res = await requestJson(
    'web search',
    new URL(`${base}/search`),
    { method: 'POST', headers, body, signal },
    resolveNetwork(options.network),
  );
  if (res.status === 401 || res.status === 403) throw new ToolError('the web search service rejected the configured API key');
  if (res.status === 429 || res.status === 432 || res.status === 433) {
    throw new ToolError('the web search service quota or rate limit was exceeded; try again later');
  }
  if (!res.ok) {
    const detail = asString(field(field(res.data, 'detail'), 'error')) ?? asString(field(res.data, 'detail'));
    throw new ToolError(`web search failed with HTTP ${res.status}${detail ? `: ${clip(detail, 200)}` : ''}`);
  }
  return formatTavily(query, res.data);
}

export function createWebSearchTool(options: WebSearchOptions): StructuredToolInterface {
  return tool(
    async ({ query, max_results }: { query: string; max_results?: number }, config) =>
      webSearch(query, max_results ?? 5, options, config?.signal),
    {
      name: 'web_search',
      description:
        'Searches the web (Tavily) for current information: news, recent events, prices, anything newer than your ' +
        'training data. Returns a short answer when available plus result titles, URLs and snippets.',
      schema: z.object({
        query: z.string().trim().min(1).max(400).describe('the search query, e.g. "서울 오늘 주요 뉴스"'),
        max_results: z.number().int().min(1).max(10).optional().describe('number of results (1-10, default 5)'),
      }),
    },
  );
}
