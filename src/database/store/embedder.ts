import path from 'node:path';

import type { EmbeddingsInterface } from '@langchain/core/embeddings';
import { AsyncCaller } from '@langchain/core/utils/async_caller';
import { OpenAIEmbeddings } from '@langchain/openai';
import { Counter, type Registry } from 'prom-client';

import type { AppConfig } from '../../config/app-config';
import { ModuleLoader } from '../../platform/module-loader';
import type { StoreIndexConfig } from '../storage-config';

/** Texts per embeddings call, at most (a put of many items or fields makes several calls). */
export const EMBED_BATCH = 64;

/** A user's embedding function as langgraph.json names it: texts in, one vector per text out. */
type EmbedFunction = (texts: string[]) => Promise<number[][]>;

/** How the store embeds: the index configuration and the batched, retried, counted call. */
export interface StoreEmbedder {
  /** `openai:<model>` or `./file.ts:function`: recorded with the vectors (another one re-embeds them) */
  readonly embed: string;
  /** the vectors' length, when configured (the default index learns it from the first embedding) */
  readonly dims?: number;
  /** JSON paths of an item's value to embed (`$`: the whole value) */
  readonly fields: string[];
  /** One vector per text, in order: batches of EMBED_BATCH texts, each call retried. */
  embedTexts(texts: string[]): Promise<number[][]>;
}

/** Prometheus counters of the store's embeddings calls (in the app's registry). */
export class EmbeddingCounters {
  readonly calls: Counter<'status'>;
  readonly texts: Counter;
  readonly chars: Counter;

  constructor(registry?: Registry) {
    const registers = registry ? [registry] : [];
    this.calls = new Counter({
      name: 'store_embedding_calls_total',
      help: 'Embeddings calls of the store semantic index, by status (ok, error)',
      labelNames: ['status'],
      registers,
    });
    this.texts = new Counter({ name: 'store_embedded_texts_total', help: 'Texts embedded for the store semantic index', registers });
    this.chars = new Counter({
      name: 'store_embedded_chars_total',
      help: 'Characters embedded for the store semantic index (about four per token)',
      registers,
    });
  }
}

/**
 * The store's embedder: `store.index` of langgraph.json when given; else, with EMBEDDINGS_* configured, the
 * service's embeddings model over the whole value (`openai:<EMBEDDINGS_MODEL>`, fields `["$"]`, dims learned);
 * else none (a `query` search stays text search). Throws on an `embed` it cannot load.
 */
export function createStoreEmbedder(
  index: StoreIndexConfig | undefined,
  config: AppConfig,
  dir: string,
  counters: EmbeddingCounters,
  loader = new ModuleLoader(),
): StoreEmbedder | undefined {
  const settings = config.embeddings;
  if (!index && !settings) return undefined;
  const spec = index?.embed ?? `openai:${settings!.model}`;
  const embedFn = embedFunctionOf(spec, config, dir, loader);
  const caller = new AsyncCaller({ maxRetries: 2, maxConcurrency: 4 });
  return {
    embed: spec,
    dims: index?.dims,
    fields: index?.fields ?? ['$'],
    async embedTexts(texts: string[]): Promise<number[][]> {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += EMBED_BATCH) {
        const batch = texts.slice(i, i + EMBED_BATCH);
        try {
          const vectors = await caller.call(embedFn, batch);
          if (!Array.isArray(vectors) || vectors.length !== batch.length) {
            throw new Error(
              `store.index.embed ${spec} returned ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${batch.length} texts`,
            );
          }
          out.push(...vectors);
          counters.calls.inc({ status: 'ok' });
          counters.texts.inc(batch.length);
          counters.chars.inc(batch.reduce((n, t) => n + t.length, 0));
        } catch (err) {
          counters.calls.inc({ status: 'error' });
          throw err;
        }
      }
      return out;
    },
  };
}

/** `openai:<model>` → the EMBEDDINGS_* endpoint with that model; `./file.ts:name` → that export of the module. */
function embedFunctionOf(spec: string, config: AppConfig, dir: string, loader: ModuleLoader): EmbedFunction {
  const openai = /^openai:(.+)$/.exec(spec);
  if (openai) {
    const e = config.embeddings;
    const client = new OpenAIEmbeddings({
      model: openai[1],
      apiKey: e?.apiKey ?? process.env.OPENAI_API_KEY ?? 'not-needed',
      configuration: e?.baseUrl ? { baseURL: e.baseUrl } : undefined,
      batchSize: EMBED_BATCH,
      maxRetries: 0, // retried by the embedder's caller
    });
    return (texts) => client.embedDocuments(texts);
  }
  const colon = spec.lastIndexOf(':');
  if (colon <= 0 || !/^[./]|^[\w-]+\.[cm]?[jt]s:/.test(spec)) {
    throw new Error(`Invalid configuration: store.index.embed "${spec}": use "openai:<model>" or "./file.ts:function"`);
  }
  const file = path.resolve(dir, spec.slice(0, colon));
  const name = spec.slice(colon + 1);
  const exported = loader.load(file)[name];
  if (typeof exported === 'function') return exported as EmbedFunction;
  const embeddings = exported as Partial<EmbeddingsInterface> | undefined;
  if (embeddings && typeof embeddings.embedDocuments === 'function') return (texts) => embeddings.embedDocuments!(texts);
  throw new Error(`Invalid configuration: store.index.embed "${spec}": ${file} exports no function or Embeddings object named "${name}"`);
}
