import { readSlice } from '../config/settings';
import { knowledgeSettings } from './knowledge.settings';

describe('knowledge settings', () => {
  it('defaults: Postgres retrieval, no embeddings', () => {
    expect(readSlice(knowledgeSettings, {})).toEqual({
      knowledge: { backend: 'postgres', opensearchUrl: 'http://127.0.0.1:9200', opensearchIndex: 'agents-documents' },
      embeddings: undefined,
      maxContractChars: 500_000,
      storeEmbedWaitMs: 2000,
    });
  });

  it('embeddings need a base URL, or a key and a model; the model defaults', () => {
    expect(readSlice(knowledgeSettings, { EMBEDDINGS_API_KEY: 'k' }).embeddings).toBeUndefined();
    expect(readSlice(knowledgeSettings, { EMBEDDINGS_BASE_URL: 'http://e/v1' }).embeddings).toEqual({
      baseUrl: 'http://e/v1',
      apiKey: undefined,
      model: 'text-embedding-3-small',
    });
    expect(() => readSlice(knowledgeSettings, { KNOWLEDGE_BACKEND: 'sqlite' })).toThrow(/^Invalid configuration: KNOWLEDGE_BACKEND: /);
  });
});
