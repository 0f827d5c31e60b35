import path from 'node:path';

import { JSDOM } from 'jsdom';

import { useService } from '../support/service-fixture';

const KEY = 'ui-html-key-0123456789abcdef';
/** a graph with a generative-UI bundle (`ui.chat`) */
const CONFIG = path.join(__dirname, '..', 'conformance', 'graphs', 'http', 'langgraph.json');

/** the page as the client builds it (LoadExternalComponent: createContextualFragment into a shadow root) */
function elements(html: string) {
  const { document } = new JSDOM(`<!doctype html><body>${html}</body>`).window;
  return [...document.body.querySelectorAll('*')] as Array<{
    tagName: string;
    getAttribute(n: string): string | null;
    attributes: { length: number };
  }>;
}

/**
 * `POST /ui/{graph}` over HTTP, through every layer of the service: a hostile component name or forwarded host
 * adds no element, attribute or script; the name reaches `render` as the string sent.
 */
describe('POST /ui/{graph}: hostile names and hosts stay text', () => {
  const svc = useService('ui_html', { env: { LANGGRAPH_CONFIG: CONFIG, API_KEYS: `t1:${KEY}` } });
  const post = (name: string, headers: Record<string, string> = {}) =>
    fetch(`${svc.url}/ui/chat`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ name }),
    });

  it.each([
    `"><script>alert(1)</script>`,
    `x' onerror='alert(1)`,
    `'); fetch('//evil.example'); ('`,
    `{{shadowRootId}}`,
    `카드 <b>굵게</b> & card`,
  ])('a component name %j', async (name) => {
    const res = await post(name);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await res.text();
    const found = elements(html);
    expect(found.map((e) => e.tagName.toLowerCase())).toEqual(['script']);
    const script = found[0];
    expect(script.attributes.length).toBe(2); // src and onload, nothing the name brought
    expect(script.getAttribute('onload')).toBe(`__LGUI_chat.render(${JSON.stringify(name)}, "{{shadowRootId}}")`);
    expect(html.split('{{shadowRootId}}').length).toBe(2);
  });

  it.each([`evil.example"><script>alert(1)</script>`, `evil.example' onload='alert(1)`, `{{shadowRootId}}`])(
    'an X-Forwarded-Host %j: refused (400) or kept inside the URL',
    async (host) => {
      const res = await post('card', { 'x-forwarded-host': host });
      if (res.status === 400) return; // forwarded headers not trusted from this client
      expect(res.status).toBe(200);
      const html = await res.text();
      const found = elements(html);
      expect(found.map((e) => e.tagName.toLowerCase())).toEqual(['script']);
      expect(found[0].attributes.length).toBe(2);
      expect(found[0].getAttribute('onload')).toBe(`__LGUI_chat.render("card", "{{shadowRootId}}")`);
      expect(found[0].getAttribute('src')).toMatch(/\/ui\/chat\/entrypoint\.js$/);
      expect(html.split('{{shadowRootId}}').length).toBe(2);
    },
  );
});
