import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { loadHttpApp } from './http-app-loader';
import { readLanggraphConfig } from './langgraph-config';

function tempConfig(config: object, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'langgraph-http-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  writeFileSync(path.join(dir, 'langgraph.json'), JSON.stringify({ graphs: { g: './g.mjs:graph' }, ...config }));
  return path.join(dir, 'langgraph.json');
}

describe('langgraph.json http and ui', () => {
  it('reads http.app, ui and ui_config.shared relative to the file; other http keys are ignored with a warning', () => {
    const file = tempConfig({ http: { app: './http.ts:app', cors: {} }, ui: { g: './ui/g.tsx' }, ui_config: { shared: ['x'] } });
    const dir = path.dirname(file);
    const c = readLanggraphConfig(file);
    expect(c.httpApp).toMatchObject({ spec: './http.ts:app', file: path.join(dir, 'http.ts'), exportName: 'app' });
    expect(c.ui).toEqual({ g: path.join(dir, 'ui', 'g.tsx') });
    expect(c.uiShared).toEqual(['x']);
    expect(c.ignored).toEqual(['http.cors']);
  });

  it('loads the Hono app of http.app (hono resolved from the service)', async () => {
    const file = tempConfig(
      { http: { app: './http.ts:app' } },
      { 'http.ts': 'import { Hono } from "hono";\nexport const app = new Hono().get("/hi", (c) => c.text("hi"));' },
    );
    const app = loadHttpApp(readLanggraphConfig(file));
    expect(await (await app!.fetch(new Request('http://x/hi'))).text()).toBe('hi');
  });

  it('names the file and export of an app that is missing or not a Hono app', () => {
    const missing = tempConfig({ http: { app: './http.ts:api' } }, { 'http.ts': 'export const app = 1;' });
    expect(() => loadHttpApp(readLanggraphConfig(missing))).toThrow(
      /http\.app "\.\/http\.ts:api" \(.*http\.ts, export "api"\).*no export "api" \(its exports: app\)/,
    );
    const notHono = tempConfig({ http: { app: './http.ts:app' } }, { 'http.ts': 'export const app = { fetch() {} };' });
    expect(() => loadHttpApp(readLanggraphConfig(notHono))).toThrow(/not a Hono app/);
    expect(loadHttpApp(readLanggraphConfig(tempConfig({})))).toBeUndefined();
  });
});
