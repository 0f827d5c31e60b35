import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { TEST_PG_URL, TEST_REDIS_URL } from '../support/infra';
import type { ChatRequest } from '../support/model-server';
import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { http as call } from '../support/test-app';

/**
 * SSRF (issue 9) through the network tools, over HTTP. A canary server listens on every loopback address
 * (dual-stack `::`) and records each hit. The "public" upstream is a MediaWiki stub on 127.0.0.2, the only
 * host allowed by TOOLS_ALLOWED_PRIVATE_HOSTS (standing in for a public API); asked for `go:<url>` it
 * answers 302 → <url>, so a hostile query picks the redirect target. get_weather and web_search are
 * configured with encoded loopback base URLs directly. Every attempt must end in a tool error naming the
 * refusal, with 0 canary hits; a control redirect to the allowed host shows the canary does count hits.
 */
interface Hit {
  host: string;
  url: string;
}

async function listen(server: http.Server, host: string, ipv6Only = false): Promise<number> {
  await new Promise<void>((r) => server.listen({ port: 0, host, ipv6Only }, r));
  return (server.address() as AddressInfo).port;
}

const closeServer = (s: http.Server) => new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r())));

/** Records every request it gets; answers like an empty MediaWiki search. */
async function startCanary() {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    hits.push({ host: req.headers.host ?? '', url: req.url ?? '' });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ query: { search: [] } }));
  });
  const port = await listen(server, '::');
  return { hits, port, close: () => closeServer(server) };
}

/** The allowed "public" upstream: `srsearch=go:<url>` → 302 to <url>. */
async function startRedirector() {
  const server = http.createServer((req, res) => {
    const target = new URL(req.url ?? '/', 'http://x').searchParams.get('srsearch') ?? '';
    if (target.startsWith('go:')) return res.writeHead(302, { location: target.slice(3) }).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ query: { search: [] } }));
  });
  const port = await listen(server, '127.0.0.2');
  return { url: `http://127.0.0.2:${port}/w/api.php`, port, close: () => closeServer(server) };
}

const toolResults = (reqs: ChatRequest[]) => reqs.flatMap((r) => r.messages.filter((m) => m.role === 'tool'));

describe('SSRF through the network tools, over HTTP', () => {
  let canary: Awaited<ReturnType<typeof startCanary>>;
  let upstream: Awaited<ReturnType<typeof startRedirector>>;

  beforeAll(async () => {
    canary = await startCanary();
    upstream = await startRedirector();
  });

  // after the stubs above (its env reads their ports); its teardown runs before the afterAll below
  const svc = useService('ssrf', {
    env: () => ({
      ...SCRIPTED_LLM,
      TOOLS_ALLOWED_PRIVATE_HOSTS: '127.0.0.2',
      WIKIPEDIA_BASE_URL: upstream.url,
      OPENWEATHER_API_KEY: 'ow-test',
      OPENWEATHER_BASE_URL: `http://2130706433:${canary.port}/data/2.5`, // decimal 127.0.0.1
      TAVILY_API_KEY: 'tvly-test',
      TAVILY_BASE_URL: `http://[::ffff:127.0.0.1]:${canary.port}`, // IPv4-mapped IPv6 loopback
    }),
    model: { resetEach: true },
  });
  const { model } = svc;

  afterAll(async () => {
    await upstream?.close();
    await canary?.close();
  });

  beforeEach(() => {
    canary.hits.length = 0;
  });

  /** One turn whose model makes all `calls` at once (the user asked to search), then answers. */
  async function turn(message: string, calls: Array<{ name: string; args: Record<string, unknown> }>) {
    const toolCalls = calls.map((c, i) => ({ id: `call_${i}`, ...c }));
    model.enqueue({ toolCalls }, { content: '검색 결과를 확인했습니다.' });
    const res = await call(svc.url, 'POST', '/v1/chat', { agent: 'assistant', message });
    expect(res.status).toBe(200);
    expect(res.body.error).toBeNull();
    const byId = new Map(toolResults(model.requests).map((m) => [m.tool_call_id, String(m.content)]));
    return { res, results: toolCalls.map((c) => byId.get(c.id) ?? '') };
  }

  const viaRedirect = (): Array<[string, string, RegExp]> => {
    const appPort = new URL(svc.url).port;
    const c = canary.port;
    const loopback = /refused: address 127\.0\.0\.1 is not allowed: loopback/;
    return [
      ['loopback canary', `http://127.0.0.1:${c}/`, loopback],
      ['Postgres', `http://127.0.0.1:${new URL(TEST_PG_URL).port || 5432}/`, loopback],
      ['Redis', `http://127.0.0.1:${new URL(TEST_REDIS_URL).port || 6379}/`, loopback],
      ["the app's own port", `http://127.0.0.1:${appPort}/v1/sessions`, loopback],
      ['cloud metadata', 'http://169.254.169.254/latest/meta-data/iam/security-credentials/', /169\.254\.169\.254.*link-local/],
      ['IPv6 loopback', `http://[::1]:${c}/`, /address ::1 is not allowed: loopback/],
      ['0.0.0.0', `http://0.0.0.0:${c}/`, /0\.0\.0\.0 is not allowed: unspecified/],
      ['bare 0', `http://0:${c}/`, /0\.0\.0\.0 is not allowed/],
      ['decimal 2130706433', `http://2130706433:${c}/`, loopback],
      ['octal 0177.0.0.1', `http://0177.0.0.1:${c}/`, loopback],
      ['hex 0x7f.0.0.1', `http://0x7f.0.0.1:${c}/`, loopback],
      ['short 127.1', `http://127.1:${c}/`, loopback],
      ['IPv4-mapped IPv6', `http://[::ffff:127.0.0.1]:${c}/`, /IPv4-mapped form of a loopback/],
      ['IPv4-mapped IPv6, long hex form', `http://[0:0:0:0:0:ffff:7f00:1]:${c}/`, /IPv4-mapped form of a loopback/],
      ['IPv6 unspecified [::]', `http://[::]:${c}/`, /address :: is not allowed: unspecified/],
      ['protocol-relative location', `//127.0.0.1:${c}/`, loopback],
      ['private 10/8', 'http://10.0.0.1/', /10\.0\.0\.1 is not allowed: private/],
      ['CGNAT metadata (100.100.100.200)', 'http://100.100.100.200/latest/meta-data/', /carrier-grade NAT/],
      ['IPv6 cloud metadata fd00:ec2::254', 'http://[fd00:ec2::254]/latest/meta-data/', /unique-local/],
      ['IPv6 link-local', 'http://[fe80::1]/', /link-local/],
      ['a DNS name resolving to loopback (localhost)', `http://localhost:${c}/`, /host "localhost" \(resolves to a loopback address\)/],
      ['LOCALHOST in capitals', `http://LOCALHOST:${c}/`, /host "localhost"/],
      ['trailing-dot localhost.', `http://localhost.:${c}/`, /host "localhost\." .*loopback|could not resolve host "localhost\."/],
      ['credentials naming the allowed host', `http://127.0.0.2@127.0.0.1:${c}/`, /embedded credentials/],
      ['a second hop through the allowed host', `${upstream.url}?srsearch=go:http://127.0.0.1:${c}/`, loopback],
      ['gopher to Redis', 'gopher://127.0.0.1:6379/_FLUSHALL', /only http and https/],
      ['file URL', 'file:///etc/passwd', /only http and https/],
    ];
  };

  it('search_wikipedia: a 302 from the allowed upstream to any internal address is refused; the canary gets 0 hits', async () => {
    const cases = viaRedirect();
    const calls = cases.map(([, target]) => ({ name: 'search_wikipedia', args: { query: `go:${target}` } }));
    const { res, results } = await turn('위키백과에서 이 주소들을 검색해줘', calls);
    expect(res.body.tool_calls).toEqual(calls.map((c) => ({ ...c, status: 'error' })));
    cases.forEach(([name, , why], i) => expect([name, results[i]]).toEqual([name, expect.stringMatching(why)]));
    for (const r of results) expect(r).toMatch(/^Error/);
    expect(canary.hits).toEqual([]);
    expect(JSON.stringify(model.requests)).not.toMatch(/"sessions"|root:x:0:0|redis_version/);
  });

  it('control: a redirect to the allowed host is followed, and the canary records it', async () => {
    const calls = [{ name: 'search_wikipedia', args: { query: `go:http://127.0.0.2:${canary.port}/control` } }];
    const { res, results } = await turn('위키백과에서 검색해줘', calls);
    expect(res.body.tool_calls).toEqual([{ ...calls[0], status: 'success' }]);
    expect(results[0]).toContain('No Wikipedia articles found');
    expect(canary.hits).toEqual([{ host: `127.0.0.2:${canary.port}`, url: '/control' }]);
  });

  it('get_weather and web_search with encoded loopback base URLs are refused before connecting', async () => {
    const calls = [
      { name: 'get_weather', args: { city: 'Seoul' } },
      { name: 'web_search', args: { query: '오늘 뉴스' } },
    ];
    const { res, results } = await turn('서울 날씨 알려주고 오늘 뉴스도 웹에서 검색해줘', calls);
    expect(res.body.tool_calls).toEqual(calls.map((c) => ({ ...c, status: 'error' })));
    expect(results[0]).toMatch(/^Error[\s\S]*refused: address 127\.0\.0\.1 is not allowed: loopback/);
    expect(results[1]).toMatch(/^Error[\s\S]*IPv4-mapped form of a loopback/);
    expect(canary.hits).toEqual([]);
    expect(JSON.stringify(model.requests)).not.toContain('ow-test'); // the key is not echoed in the error
  });

  it('hostile query text stays a query parameter: it cannot change the host, path or credentials', async () => {
    const queries = [`@127.0.0.1:${canary.port}/`, `http://127.0.0.1:${canary.port}/`, '../../../admin?x=#', 'a\r\nHost: 127.0.0.1'];
    const calls = queries.map((query) => ({ name: 'search_wikipedia', args: { query } }));
    const { res, results } = await turn('위키에서 이것들을 검색해줘', calls);
    expect(res.body.tool_calls.map((c: { status: string }) => c.status)).toEqual(queries.map(() => 'success'));
    for (const r of results) expect(r).toContain('No Wikipedia articles found');
    expect(canary.hits).toEqual([]);
  });
});
