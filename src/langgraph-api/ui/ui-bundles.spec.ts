import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { AppConfig } from '../../config/app-config';
import { UiBundles } from './ui-bundles';

function project(ui: Record<string, string>, files: Record<string, string>): AppConfig {
  const dir = mkdtempSync(path.join(tmpdir(), 'lg-ui-spec-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  writeFileSync(path.join(dir, 'graph.mjs'), 'export const graph = null;');
  writeFileSync(path.join(dir, 'langgraph.json'), JSON.stringify({ graphs: { g: './graph.mjs:graph' }, ui }));
  return { langgraphConfig: path.join(dir, 'langgraph.json') } as AppConfig;
}

describe('UiBundles', () => {
  it('bundles each graph’s component (React left to the page) and names the file of one that fails', async () => {
    const bundles = new UiBundles(
      project(
        { good: './good.tsx', bad: './bad.tsx' },
        {
          'good.tsx': 'export default { hi: () => <b>hi</b> };',
          'bad.tsx': 'import x from "./nowhere";\nexport default { x };',
        },
      ),
    );
    bundles.onApplicationBootstrap();
    const good = await bundles.files('good');
    const js = new TextDecoder().decode(good?.get('entrypoint.js'));
    expect(js).toContain('__LGUI_good');
    expect(js).toContain('Symbol.for("LGUI_REQUIRE")');
    await expect(bundles.files('bad')).rejects.toThrow(/UI of graph "bad" \(.*bad\.tsx\).*nowhere/s);
    expect(bundles.files('none')).toBeUndefined();
  }, 60_000);
});
