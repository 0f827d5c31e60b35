import { Client } from '@langchain/langgraph-sdk';

import { embed } from '../support/model-server';
import { useService } from '../support/service-fixture';

const KEY = 'tenant-one-key-0123456789';

const NOTES: Record<string, { text: string }> = {
  tea: { text: 'green tea is brewed at eighty degrees' },
  bike: { text: 'the bicycle chain needs oil every month' },
  seoul: { text: '서울의 겨울은 춥고 건조하다' },
};

/**
 * The default index embeds the whole value (`$`: its indented JSON, as LangGraph writes it), which the OpenAI
 * client sends with its newlines as spaces.
 */
const score = (query: string, value: object) => {
  const q = embed(query);
  const v = embed(JSON.stringify(value, null, 2).replace(/\n/g, ' '));
  return q.reduce((s, x, i) => s + x * v[i], 0);
};

/**
 * The SDK's `store.searchItems` with `query` on the built service, with the default index (EMBEDDINGS_* set, no
 * `store.index`): ranked by meaning, each with `score`; `refreshTtl` on a get is accepted.
 */
describe('LangGraph store search by meaning through the SDK (default index)', () => {
  const svc = useService('lgstoresemantic', {
    model: true,
    env: (ctx) => ({ API_KEYS: `t1:${KEY}`, EMBEDDINGS_BASE_URL: ctx.model.baseUrl, EMBEDDINGS_MODEL: 'scripted-embeddings' }),
  });
  let client: Client;

  beforeAll(async () => {
    client = new Client({ apiUrl: svc.url, apiKey: KEY, callerOptions: { maxRetries: 0 } });
    for (const [key, value] of Object.entries(NOTES)) await client.store.putItem(['notes'], key, value);
    await client.store.putItem(['notes'], 'private', { text: NOTES.tea.text }, { index: false });
  });

  it('ranks by similarity with scores, leaving out items put with index: false', async () => {
    for (const query of ['how hot should tea water be', '서울 겨울 날씨']) {
      const { items } = await client.store.searchItems(['notes'], { query, limit: 10 });
      const expected = Object.keys(NOTES).sort((a, b) => score(query, NOTES[b]) - score(query, NOTES[a]));
      expect(items.map((i) => i.key)).toEqual(expected);
      for (const item of items) expect(item.score).toBeCloseTo(score(query, NOTES[item.key]), 4);
    }
  });

  it('lists every item (index: false included) without a query, and takes refreshTtl on a get', async () => {
    const { items } = await client.store.searchItems(['notes'], { limit: 10 });
    expect(items.map((i) => i.key).sort()).toEqual(['bike', 'private', 'seoul', 'tea']);
    expect(await client.store.getItem(['notes'], 'tea', { refreshTtl: true })).toMatchObject({ value: NOTES.tea });
  });
});
