import { z } from 'zod';

import { defineSettings, int, optionalString, type SettingsOf, variable } from '../config/settings';

/** Documents and contracts: the retrieval backend, embeddings, contract size. */
export const knowledgeSettings = defineSettings({
  module: 'knowledge',
  variables: {
    KNOWLEDGE_BACKEND: variable(
      z.enum(['postgres', 'opensearch']).default('postgres'),
      'knowledge-base retrieval: `postgres` (full-text + trigram, + pgvector) or `opensearch`',
    ),
    OPENSEARCH_URL: variable(z.string().default('http://127.0.0.1:9200'), 'the OpenSearch backend'),
    OPENSEARCH_INDEX: variable(z.string().default('agents-documents'), "the OpenSearch backend's index"),
    EMBEDDINGS_BASE_URL: variable(
      optionalString,
      'OpenAI-compatible embeddings: vector similarity joins hybrid search where pgvector exists (the embedded Postgres has it)',
      'unset → text search only',
    ),
    EMBEDDINGS_API_KEY: variable(optionalString, "the embeddings endpoint's API key (with `EMBEDDINGS_MODEL`, enough for OpenAI)", 'unset'),
    EMBEDDINGS_MODEL: variable(optionalString, 'the embeddings model', '`text-embedding-3-small` when embeddings are configured'),
    STORE_EMBED_WAIT_MS: variable(
      int(2000, 0),
      'how long a store put waits for its item to be embedded (semantic index) before it returns; the item is then indexed in the background',
    ),
    MAX_CONTRACT_CHARS: variable(int(500_000, 100), 'largest contract accepted (then 413)'),
  },
  build: (e) => {
    /** OpenAI-compatible embeddings for vector search; unset → full-text + trigram only */
    let embeddings: { baseUrl?: string; apiKey?: string; model: string } | undefined;
    if (e.EMBEDDINGS_BASE_URL || (e.EMBEDDINGS_API_KEY && e.EMBEDDINGS_MODEL)) {
      embeddings = { baseUrl: e.EMBEDDINGS_BASE_URL, apiKey: e.EMBEDDINGS_API_KEY, model: e.EMBEDDINGS_MODEL ?? 'text-embedding-3-small' };
    }
    return {
      knowledge: {
        backend: e.KNOWLEDGE_BACKEND,
        opensearchUrl: e.OPENSEARCH_URL,
        opensearchIndex: e.OPENSEARCH_INDEX,
      },
      /** OpenAI-compatible embeddings for vector search; unset → full-text + trigram only */
      embeddings,
      maxContractChars: e.MAX_CONTRACT_CHARS,
      /** how long a store put waits for its vectors before returning (they follow in the background) */
      storeEmbedWaitMs: e.STORE_EMBED_WAIT_MS,
    };
  },
});

declare module '../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: this slice's fields on AppConfig
  interface AppConfig extends SettingsOf<typeof knowledgeSettings> {}
}
