import type { Request, Response } from 'express';
import { JSDOM } from 'jsdom';

import { uiAssets, UiController } from './ui.controller';
import type { UiBundles } from './ui-bundles';

const FILES = new Map([
  ['entrypoint.js', new Uint8Array()],
  ['entrypoint.css', new Uint8Array()],
]);

/** the HTML `POST /ui/{graph}` answers for a component name and request headers */
async function componentHtml(name: string, headers: Record<string, string>, graph = 'chat'): Promise<string> {
  const bundles = { files: (g: string) => (g === graph ? Promise.resolve(FILES) : undefined) } as unknown as UiBundles;
  let sent = '';
  const res = { type: () => res, send: (body: string) => void (sent = body) } as unknown as Response;
  const req = { protocol: 'http', headers: { host: '127.0.0.1:8123', ...headers } } as unknown as Request;
  await new UiController(bundles).component(graph, { name }, req, res);
  return sent;
}

/** the page as a browser builds it (the client inserts it with createContextualFragment) */
function parsed(html: string) {
  const { document } = new JSDOM(`<!doctype html><body>${html}</body>`).window;
  const all = [...document.body.querySelectorAll('*')] as Array<{ tagName: string; getAttribute(n: string): string | null }>;
  return {
    tags: all.map((e) => e.tagName.toLowerCase()),
    attr: (tag: string, a: string) => all.find((e) => e.tagName.toLowerCase() === tag)?.getAttribute(a),
  };
}

const HOSTILE_NAMES = [
  `"><script>alert(1)</script>`,
  `x' onerror='alert(1)`,
  `'); alert(1); ('`,
  `</script><img src=x onerror=alert(1)>`,
  `{{shadowRootId}}`,
  `카드 & "따옴표" <b>굵게</b>`,
  `\u2028\u2029\\"`,
];

describe('POST /ui/{graph}: the HTML escapes what it interpolates', () => {
  it('writes a plain name and host as LangGraph Platform does', async () => {
    expect(await componentHtml('card', {})).toBe(
      [
        '<link rel="stylesheet" href="http://127.0.0.1:8123/ui/chat/entrypoint.css" />',
        `<script src="http://127.0.0.1:8123/ui/chat/entrypoint.js" onload='__LGUI_chat.render("card", "{{shadowRootId}}")'></script>`,
      ].join('\n'),
    );
  });

  it.each(HOSTILE_NAMES)('a component name %j stays the string the script renders, adding no element or attribute', async (name) => {
    const html = await componentHtml(name, {});
    const page = parsed(html);
    expect(page.tags).toEqual(['link', 'script']);
    expect(page.attr('script', 'onload')).toBe(`__LGUI_chat.render(${JSON.stringify(name)}, "{{shadowRootId}}")`);
    expect(page.attr('script', 'onerror')).toBeNull();
    // the placeholder the client replaces (its first occurrence) is the service's, once
    expect(html.split('{{shadowRootId}}').length).toBe(2);
    expect(html.indexOf('{{shadowRootId}}')).toBeGreaterThan(html.indexOf('onload='));
  });

  it.each([
    ['X-Forwarded-Host', { 'x-forwarded-host': `evil.example"><script>alert(1)</script>` }],
    ['Host', { host: `evil.example"><svg onload=alert(1)>` }],
    ['X-Forwarded-Host with the placeholder', { 'x-forwarded-host': `{{shadowRootId}}.example` }],
  ])('a hostile %s stays inside the URLs', async (_header, headers) => {
    const html = await componentHtml('card', headers);
    const page = parsed(html);
    expect(page.tags).toEqual(['link', 'script']);
    const host = Object.values(headers)[0];
    expect(page.attr('script', 'src')).toBe(`http://${host}/ui/chat/entrypoint.js`);
    expect(page.attr('link', 'href')).toBe(`http://${host}/ui/chat/entrypoint.css`);
    expect(page.attr('script', 'onload')).toBe(`__LGUI_chat.render("card", "{{shadowRootId}}")`);
    expect(html.split('{{shadowRootId}}').length).toBe(2);
  });
});

describe('GET /ui/{graph}/{file}: errors in the LangGraph API shape, from the one mapping', () => {
  /** what uiAssets answered: status, headers, content type and body */
  async function asset(route: string, files: () => Promise<Map<string, Uint8Array>> | undefined) {
    const sent = { status: 0, headers: {} as Record<string, string>, type: '', body: '' as unknown };
    let done!: () => void;
    const answered = new Promise<void>((r) => (done = r));
    const res = {
      headersSent: false,
      set: (h: Record<string, string>) => (Object.assign(sent.headers, h), res),
      status: (s: number) => ((sent.status = s), res),
      type: (t: string) => ((sent.type = t), res),
      send: (b: unknown) => ((sent.body = b), done(), res),
    } as unknown as Response;
    const req = { path: route, method: 'GET' } as unknown as Request;
    uiAssets({ files } as unknown as UiBundles)(req, res, () => done());
    await answered;
    return sent;
  }

  it("a file the bundle has not: LangGraph Platform's text, our code in X-Error-Code", async () => {
    expect(await asset('/ui/chat/nope.js', () => Promise.resolve(FILES))).toEqual({
      status: 404,
      headers: { 'X-Error-Code': 'UI_FILE_NOT_FOUND' },
      type: 'text/plain;charset=UTF-8',
      body: 'File not found',
    });
  });

  it('a bundle that failed to build: the `detail` beside the error, nothing of the bundler', async () => {
    const sent = await asset('/ui/chat/entrypoint.js', () => Promise.reject(new Error('/home/me/src/ui.tsx:3 unexpected token')));
    expect(sent.status).toBe(500);
    expect(sent.headers).toEqual({ 'X-Error-Code': 'UI_BUNDLE_FAILED' });
    const body = JSON.parse(String(sent.body)) as { error: { code: string; message: string }; detail: string };
    expect(body.error.code).toBe('UI_BUNDLE_FAILED');
    expect(body.detail).toBe(body.error.message);
    expect(String(sent.body)).not.toMatch(/ui\.tsx|unexpected token/);
  });
});
