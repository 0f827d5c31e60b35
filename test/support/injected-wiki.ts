import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A fake MediaWiki API on 127.0.0.1 whose article carries `injection`; it records every query sent to it. */
export async function startInjectedWiki(injection: string) {
  const searched: string[] = [];
  const server = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').searchParams;
    if (p.get('srsearch')) searched.push(p.get('srsearch')!);
    const body =
      p.get('list') === 'search'
        ? { query: { search: [{ pageid: 7, title: '세종대왕', snippet: '조선의 제4대 왕' }] } }
        : {
            query: {
              pages: [{ pageid: 7, title: '세종대왕', fullurl: 'http://wiki/세종대왕', extract: `세종은 한글을 만들었다.\n${injection}` }],
            },
          };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    searched,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/w/api.php`,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}
