import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { z } from 'zod';

import { turnLanguage } from '../../core/language';
import { asNumber, asString, clip, field, requestJson } from './http-json';
import { ToolError } from './tool-error';
import { type Availability, type NetworkOptions, networkToolAvailability, resolveNetwork } from './types';

export interface SearchWikipediaOptions {
  /** Wikipedia language edition, used for the default base URL. Unset: the language of the user's message. */
  language?: string;
  /** MediaWiki API endpoint. Default `https://<language>.wikipedia.org/w/api.php`. */
  baseUrl?: string;
  /** Wikimedia asks API clients for a descriptive User-Agent. */
  userAgent?: string;
  network?: NetworkOptions;
}

const DEFAULT_USER_AGENT = 'agent-orchestrator/0.1 (search_wikipedia tool)';
const MAX_EXTRACT = 1200;

/** The API of the configured wiki, else of the language edition (`language`, else the option's, else English). */
export function wikipediaEndpoint(options: SearchWikipediaOptions, language?: string): string {
  return options.baseUrl ?? `https://${options.language ?? language ?? 'en'}.wikipedia.org/w/api.php`;
}

export function searchWikipediaAvailability(options: SearchWikipediaOptions = {}): Availability {
  if (options.language !== undefined && !/^[a-z][a-z0-9-]{1,15}$/.test(options.language)) {
    return { available: false, reason: `invalid Wikipedia language code "${options.language}"` };
  }
  if (!URL.canParse(wikipediaEndpoint(options))) return { available: false, reason: 'invalid Wikipedia API base URL' };
  return networkToolAvailability(options.network, undefined);
}

interface Hit {
  pageid: number;
  title: string;
  snippet: string;
}

function apiError(data: unknown): string | undefined {
  return asString(field(field(data, 'error'), 'info'));
}

function stripHtml(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

/** Searches Wikipedia and returns the lead-section text of the best matches. */
export async function searchWikipedia(
  query: string,
  limit: number,
  options: SearchWikipediaOptions = {},
  signal?: AbortSignal,
  language?: string,
): Promise<string> {
  const net = resolveNetwork(options.network);
  const base = wikipediaEndpoint(options, language);
  const headers = { 'user-agent': options.userAgent ?? DEFAULT_USER_AGENT };
  const call = async (params: Record<string, string>) => {
    const url = new URL(base);
    for (const [k, v] of Object.entries({ action: 'query', format: 'json', formatversion: '2', ...params })) url.searchParams.set(k, v);
    const res = await requestJson('Wikipedia', url, { headers, signal }, net);
    const error = apiError(res.data);
    if (error) throw new ToolError(`Wikipedia API error: ${error}`);
    if (!res.ok) throw new ToolError(`Wikipedia returned HTTP ${res.status}`);
    return res.data;
  };

  const searchData = await call({ list: 'search', srsearch: query, srlimit: String(limit), srprop: 'snippet' });
  const rawHits = field(field(searchData, 'query'), 'search');
  const hits: Hit[] = (Array.isArray(rawHits) ? rawHits : []).flatMap((h: unknown) => {
    const pageid = asNumber(field(h, 'pageid'));
    const title = asString(field(h, 'title'));
    return pageid !== undefined && title ? [{ pageid, title, snippet: stripHtml(asString(field(h, 'snippet')) ?? '') }] : [];
  });
  if (hits.length === 0) return `No Wikipedia articles found for "${query}".`;

  const pagesData = await call({
    prop: 'extracts|info',
    inprop: 'url',
    exintro: '1',
    explaintext: '1',
    exlimit: String(hits.length),
    pageids: hits.map((h) => h.pageid).join('|'),
  });
  const rawPages = field(field(pagesData, 'query'), 'pages');
  const pages = new Map<number, unknown>();
  for (const p of Array.isArray(rawPages) ? rawPages : []) {
    const id = asNumber(field(p, 'pageid'));
    if (id !== undefined) pages.set(id, p);
  }
  const origin = new URL(base).origin;
  return hits
    .map((hit, i) => {
      const page = pages.get(hit.pageid);
      const url = asString(field(page, 'fullurl')) ?? `${origin}/wiki/${encodeURIComponent(hit.title.replace(/ /g, '_'))}`;
      const text = asString(field(page, 'extract'))?.trim() || hit.snippet;
      return `${i + 1}. ${hit.title} — ${url}\n${clip(text, MAX_EXTRACT)}`;
    })
    .join('\n\n');
}

export function createSearchWikipediaTool(options: SearchWikipediaOptions = {}): StructuredToolInterface {
  return tool(
    // without a fixed WIKIPEDIA_LANGUAGE, the edition of the user's language (the run's, else the query's)
    async ({ query, limit }: { query: string; limit?: number }, config) =>
      searchWikipedia(query, limit ?? 3, options, config?.signal, turnLanguage(config, query)),
    {
      name: 'search_wikipedia',
      description:
        `Searches Wikipedia (${options.baseUrl ? 'configured wiki' : options.language ? `${options.language}.wikipedia.org` : "the edition in the user's language"}) ` +
        'and returns the titles, URLs and introductory text of the best-matching articles. ' +
        'Use for encyclopedic facts about people, places, history, science and concepts.',
      schema: z.object({
        query: z.string().trim().min(1).max(300).describe('search terms, e.g. "세종대왕" or "photosynthesis"'),
        limit: z.number().int().min(1).max(5).optional().describe('number of articles to return (1-5, default 3)'),
      }),
    },
  );
}
