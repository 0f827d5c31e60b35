import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { AppConfig } from '../../config/app-config';
import { createStoreEmbedder, EMBED_BATCH, EmbeddingCounters } from './embedder';

const config = (embeddings?: AppConfig['embeddings']) => ({ embeddings }) as AppConfig;

describe('createStoreEmbedder', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'store-embed-'));
    writeFileSync(
      path.join(dir, 'embed.ts'),
      `export const calls: number[] = [];
       export async function lengths(texts: string[]): Promise<number[][]> {
         calls.push(texts.length);
         return texts.map((t: string) => [t.length, 1]);
       }
       export const asObject = { embedDocuments: async (texts: string[]) => texts.map(() => [0, 1]), embedQuery: async () => [0, 1] };
       export const notOne = 42;`,
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("loads the user's function (./file.ts:function), batches the texts and counts the calls", async () => {
    const counters = new EmbeddingCounters();
    const embedder = createStoreEmbedder({ embed: './embed.ts:lengths', dims: 2, fields: ['text'] }, config(), dir, counters)!;
    const texts = Array.from({ length: EMBED_BATCH + 3 }, (_, i) => 'x'.repeat(i));
    const vectors = await embedder.embedTexts(texts);
    expect(vectors.map((v) => v[0])).toEqual(texts.map((t) => t.length));
    expect((await counters.calls.get()).values).toEqual([expect.objectContaining({ labels: { status: 'ok' }, value: 2 })]);
    expect((await counters.texts.get()).values[0].value).toBe(texts.length);
    expect(embedder).toMatchObject({ embed: './embed.ts:lengths', dims: 2, fields: ['text'] });
  });

  it('takes an Embeddings object, and refuses an export that is neither', async () => {
    const embedder = createStoreEmbedder({ embed: './embed.ts:asObject', dims: 2, fields: ['$'] }, config(), dir, new EmbeddingCounters())!;
    expect(await embedder.embedTexts(['a', '한국어'])).toEqual([
      [0, 1],
      [0, 1],
    ]);
    expect(() =>
      createStoreEmbedder({ embed: './embed.ts:notOne', dims: 2, fields: ['$'] }, config(), dir, new EmbeddingCounters()),
    ).toThrow(/exports no function or Embeddings object named "notOne"/);
    expect(() => createStoreEmbedder({ embed: 'cohere:embed-v3', dims: 2, fields: ['$'] }, config(), dir, new EmbeddingCounters())).toThrow(
      /use "openai:<model>" or "\.\/file\.ts:function"/,
    );
  });

  it("defaults to the service's embeddings model over the whole value; none without EMBEDDINGS_*", () => {
    expect(createStoreEmbedder(undefined, config(), dir, new EmbeddingCounters())).toBeUndefined();
    const embedder = createStoreEmbedder(
      undefined,
      config({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm1' }),
      dir,
      new EmbeddingCounters(),
    );
    expect(embedder).toMatchObject({ embed: 'openai:m1', dims: undefined, fields: ['$'] });
  });
});
