import { mkdtempSync, rmSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { withRunContext } from '../../core/run-context';
import { createGetWeatherTool, getWeather, getWeatherAvailability } from './get-weather.tool';
import { createGeneralTools } from './index';
import { createSearchWikipediaTool, searchWikipedia, searchWikipediaAvailability, wikipediaEndpoint } from './search-wikipedia.tool';
import type { NetworkOptions } from './types';
import { createWebSearchTool, webSearch, webSearchAvailability } from './web-search.tool';

interface Seen {
  url: URL;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
type Reply = { status: number; json: unknown } | 'hang';

/** A fake upstream on 127.0.0.1: `route` decides the reply, every request is recorded. */
async function startServer(route: (req: Seen) => Reply) {
  const seen: Seen[] = [];
  const server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const s = { url: new URL(req.url ?? '/', 'http://fake'), method: req.method ?? '', headers: req.headers, body };
      seen.push(s);
      const reply = route(s);
      if (reply === 'hang') return;
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { base, seen, close };
}

const testNet: NetworkOptions = { allowPrivateNetwork: true, timeoutMs: 2000 };

describe('search_wikipedia', () => {
  let srv: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    srv = await startServer(({ url }) => {
      const p = url.searchParams;
      if (p.get('srsearch') === 'error') return { status: 200, json: { error: { code: 'x', info: 'bad search' } } };
      if (p.get('list') === 'search') {
        if (p.get('srsearch') === '없는말') return { status: 200, json: { query: { search: [] } } };
        return {
          status: 200,
          json: {
            query: {
              search: [
                { pageid: 1, title: '세종대왕', snippet: '<span class="searchmatch">조선</span>의 제4대 왕' },
                { pageid: 2, title: '한글', snippet: '한국어의 문자' },
              ],
            },
          },
        };
      }
      // extracts come back in a different order than the search hits; page 2 has no extract
      return {
        status: 200,
        json: {
          query: {
            pages: [
              { pageid: 2, title: '한글', fullurl: 'https://ko.wikipedia.org/wiki/%ED%95%9C%EA%B8%80' },
              {
                pageid: 1,
                title: '세종대왕',
                extract: '세종은 조선의 제4대 국왕이다. 훈민정음을 창제하였다.',
                fullurl: 'https://ko.wikipedia.org/wiki/%EC%84%B8%EC%A2%85%EB%8C%80%EC%99%95',
              },
            ],
          },
        },
      };
    });
  });
  afterAll(() => srv.close());

  it('searches, then fetches intro extracts, in search order', async () => {
    const opts = { baseUrl: `${srv.base}/w/api.php`, network: testNet, userAgent: 'test-agent/1' };
    const out = await createSearchWikipediaTool(opts).invoke({ query: '세종', limit: 2 });
    expect(out).toMatch(/^1\. 세종대왕 — https:\/\/ko\.wikipedia\.org\/wiki\/%EC%84%B8.*\n세종은 조선의 제4대 국왕이다/);
    expect(out).toContain('2. 한글 — https://ko.wikipedia.org/wiki/%ED%95%9C%EA%B8%80\n한국어의 문자'); // snippet fallback, HTML stripped
    const [search, extracts] = srv.seen.slice(-2);
    expect(search.url.pathname).toBe('/w/api.php');
    expect(Object.fromEntries(search.url.searchParams)).toMatchObject({
      action: 'query',
      list: 'search',
      srsearch: '세종',
      srlimit: '2',
      format: 'json',
    });
    expect(Object.fromEntries(extracts.url.searchParams)).toMatchObject({
      prop: 'extracts|info',
      exintro: '1',
      explaintext: '1',
      pageids: '1|2',
    });
    expect(search.headers['user-agent']).toBe('test-agent/1');
  });

  it('reports no results as a normal answer and an API error as an error', async () => {
    const opts = { baseUrl: `${srv.base}/w/api.php`, network: testNet };
    await expect(searchWikipedia('없는말', 3, opts)).resolves.toBe('No Wikipedia articles found for "없는말".');
    await expect(searchWikipedia('error', 3, opts)).rejects.toThrow('Wikipedia API error: bad search');
  });

  it('goes through the network guard (a local base URL is refused without the test override)', async () => {
    await expect(searchWikipedia('세종', 3, { baseUrl: `${srv.base}/w/api.php` })).rejects.toThrow(/refused.*127\.0\.0\.1/);
  });

  it("is available without a key, follows the user's language unless one is set, and reports bad config", () => {
    expect(searchWikipediaAvailability({})).toEqual({ available: true });
    expect(createSearchWikipediaTool({}).description).toContain("the edition in the user's language");
    expect(createSearchWikipediaTool({ language: 'ko' }).description).toContain('ko.wikipedia.org');
    expect(wikipediaEndpoint({}, 'ko')).toBe('https://ko.wikipedia.org/w/api.php');
    expect(wikipediaEndpoint({}, 'en')).toBe('https://en.wikipedia.org/w/api.php');
    expect(wikipediaEndpoint({ language: 'de' }, 'ko')).toBe('https://de.wikipedia.org/w/api.php'); // WIKIPEDIA_LANGUAGE wins
    expect(wikipediaEndpoint({ baseUrl: 'https://wiki.example/api.php' }, 'ko')).toBe('https://wiki.example/api.php');
    expect(searchWikipediaAvailability({ language: 'en; DROP' })).toMatchObject({
      available: false,
      reason: expect.stringMatching(/language/),
    });
    expect(searchWikipediaAvailability({ network: { enabled: false } })).toMatchObject({
      available: false,
      reason: expect.stringMatching(/network/),
    });
  });
});

describe('get_weather', () => {
  let srv: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    srv = await startServer(({ url }) => {
      const q = url.searchParams.get('q');
      if (url.searchParams.get('appid') !== 'k-123') return { status: 401, json: { cod: 401, message: 'Invalid API key' } };
      if (q === 'Atlantis') return { status: 404, json: { cod: '404', message: 'city not found' } };
      if (q === 'Slow') return 'hang';
      return {
        status: 200,
        json: {
          name: '서울',
          sys: { country: 'KR' },
          weather: [{ description: '맑음' }],
          main: { temp: 12.34, feels_like: 10.06, temp_min: 9, temp_max: 14.5, humidity: 40 },
          wind: { speed: 3.1 },
        },
      };
    });
  });
  afterAll(() => srv.close());
  const opts = () => ({ apiKey: 'k-123', baseUrl: `${srv.base}/data/2.5`, network: testNet });

  it("returns the current weather in the run's language (Korean here) with metric units", async () => {
    const korean = { configurable: withRunContext({ tenantId: 't', runId: 'r', language: 'ko' }) };
    const out = await createGetWeatherTool(opts()).invoke({ city: 'Seoul' }, korean);
    expect(out).toBe('서울 (KR) 현재 날씨: 맑음, 기온 12.3°C, 체감 10.1°C, 최저/최고 9/14.5°C, 습도 40%, 풍속 3.1 m/s');
    const req = srv.seen[srv.seen.length - 1];
    expect(req.url.pathname).toBe('/data/2.5/weather');
    expect(Object.fromEntries(req.url.searchParams)).toEqual({ q: 'Seoul', units: 'metric', lang: 'kr', appid: 'k-123' });
  });

  it('labels the weather in English and asks OpenWeather for English outside a Korean run', async () => {
    const out = await createGetWeatherTool(opts()).invoke({ city: 'Seoul' });
    expect(out).toBe(
      '서울 (KR) current weather: 맑음, temperature 12.3°C, feels like 10.1°C, min/max 9/14.5°C, humidity 40%, wind 3.1 m/s',
    );
    expect(srv.seen[srv.seen.length - 1].url.searchParams.get('lang')).toBe('en');
  });

  it('turns upstream errors into messages without leaking the key', async () => {
    await expect(getWeather('Atlantis', opts())).rejects.toThrow(/city not found: "Atlantis"/);
    const bad = await getWeather('Seoul', { ...opts(), apiKey: 'wrong-key' }).catch((e: Error) => e);
    expect((bad as Error).message).toMatch(/rejected the configured API key/);
    const slow = await getWeather('Slow', { ...opts(), network: { ...testNet, timeoutMs: 200 } }).catch((e: Error) => e);
    expect((slow as Error).message).toMatch(/timed out/);
    expect(`${(bad as Error).message} ${(slow as Error).message}`).not.toMatch(/k-123|wrong-key|appid/);
  });

  it('is unavailable without an API key', () => {
    expect(getWeatherAvailability({})).toEqual({ available: false, reason: 'no OpenWeather API key configured' });
    expect(getWeatherAvailability({ apiKey: '  ' }).available).toBe(false);
    expect(getWeatherAvailability({ apiKey: 'k' })).toEqual({ available: true });
  });
});

describe('web_search (Tavily)', () => {
  let srv: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    srv = await startServer(({ headers, body }) => {
      if (headers.authorization !== 'Bearer tvly-test') return { status: 401, json: { detail: { error: 'Unauthorized' } } };
      const query = (JSON.parse(body) as { query: string }).query;
      if (query === 'nothing') return { status: 200, json: { query, results: [] } };
      return {
        status: 200,
        json: {
          query,
          answer: 'NestJS is a Node.js framework.',
          results: [
            { title: 'NestJS', url: 'https://nestjs.com/', content: 'A progressive   Node.js framework', score: 0.9 },
            { title: '', url: 'https://docs.nestjs.com/', content: 'Documentation', score: 0.8 },
            { title: 'no url', content: 'dropped' },
          ],
        },
      };
    });
  });
  afterAll(() => srv.close());
  const opts = () => ({ apiKey: 'tvly-test', baseUrl: srv.base, network: testNet });

  it('POSTs to /search with a bearer key and formats titles, urls and snippets', async () => {
    const out = await createWebSearchTool(opts()).invoke({ query: 'what is nestjs', max_results: 3 });
    expect(out).toBe(
      'Answer: NestJS is a Node.js framework.\n\n' +
        '1. NestJS\n   https://nestjs.com/\n   A progressive Node.js framework\n\n' +
        '2. https://docs.nestjs.com/\n   https://docs.nestjs.com/\n   Documentation',
    );
    const req = srv.seen[srv.seen.length - 1];
    expect(req.method).toBe('POST');
    expect(req.url.pathname).toBe('/search');
    expect(JSON.parse(req.body)).toEqual({ query: 'what is nestjs', max_results: 3, search_depth: 'basic', include_answer: true });
    expect(req.body).not.toContain('tvly-test');
  });

  it('handles no results and a rejected key', async () => {
    await expect(webSearch('nothing', 5, opts())).resolves.toBe('No web results found for "nothing".');
    await expect(webSearch('x', 5, { ...opts(), apiKey: 'tvly-bad' })).rejects.toThrow(/rejected the configured API key/);
  });

  it('is unavailable without an API key or without network', () => {
    expect(webSearchAvailability({})).toEqual({ available: false, reason: 'no Tavily API key configured' });
    expect(webSearchAvailability({ apiKey: 'k', network: { enabled: false } }).available).toBe(false);
    expect(webSearchAvailability({ apiKey: 'k' })).toEqual({ available: true });
  });
});

describe('createGeneralTools', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'general-tools-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('offers only what is configured and says why the rest is missing', () => {
    const { tools, unavailable } = createGeneralTools({});
    expect(tools.map((t) => t.name)).toEqual(['search_wikipedia']);
    expect(Object.fromEntries(unavailable.map((u) => [u.name, u.reason]))).toEqual({
      get_weather: 'no OpenWeather API key configured',
      web_search: 'no Tavily API key configured',
      read_file: 'no read_file root directory configured',
      python_repl: expect.stringMatching(/disabled/),
    });
  });

  it('builds all network and file tools when configured, and applies the shared network switch', () => {
    const all = createGeneralTools({ weather: { apiKey: 'a' }, webSearch: { apiKey: 'b' }, readFile: { root } });
    expect(all.tools.map((t) => t.name).sort()).toEqual(['get_weather', 'read_file', 'search_wikipedia', 'web_search']);
    const offline = createGeneralTools({ network: { enabled: false }, weather: { apiKey: 'a' }, readFile: { root } });
    expect(offline.tools.map((t) => t.name)).toEqual(['read_file']);
    expect(offline.unavailable.find((u) => u.name === 'search_wikipedia')?.reason).toMatch(/network access is disabled/);
  });
});
