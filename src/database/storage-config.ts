import { readFileSync } from 'node:fs';
import path from 'node:path';

import { z } from 'zod';

/** `store.index` of langgraph.json: how store items are embedded for search by meaning. */
export interface StoreIndexConfig {
  /** `openai:<model>` (the service's EMBEDDINGS_* endpoint, this model) or a module's export: `./file.ts:function` */
  embed: string;
  dims: number;
  /** JSON paths of the value to embed; `["$"]` (the whole value) by default */
  fields: string[];
}

/** `store.ttl`: minutes (fractions allowed). */
export interface StoreTtlConfig {
  /** an item's TTL when its put names none; undefined: items never expire unless put with a `ttl` */
  defaultTtl?: number;
  /** a read (get, search) pushes an item's expiry out by its TTL again (per request: `refresh_ttl`) */
  refreshOnRead: boolean;
  sweepIntervalMinutes: number;
}

/** `checkpointer.ttl`: how long a thread (its checkpoints, runs and events) is kept after its last activity. */
export interface CheckpointerTtlConfig {
  /** `delete`: the thread and all it holds go; `keep_latest`: the thread and its latest checkpoint stay */
  strategy: 'delete' | 'keep_latest';
  /** minutes after its last activity a thread without its own `ttl` expires; undefined: never */
  defaultTtl?: number;
  sweepIntervalMinutes: number;
  /** threads handled per sweep, at most */
  sweepLimit: number;
}

/** What the service takes from langgraph.json's `store` and `checkpointer` keys. */
export interface StorageConfig {
  index?: StoreIndexConfig;
  storeTtl?: StoreTtlConfig;
  checkpointerTtl?: CheckpointerTtlConfig;
  /** the directory of langgraph.json: `./file.ts:function` embed paths are relative to it */
  dir: string;
}

const minutes = z.number().positive().finite();

/** langgraph.json's `store` key, as the LangGraph CLI documents it (snake_case). */
export const storeSchema = z
  .object({
    index: z
      .object({
        embed: z.string().min(1),
        dims: z.number().int().positive().max(16_000),
        fields: z.array(z.string().min(1)).min(1).nullish(),
      })
      .nullish(),
    ttl: z
      .object({
        default_ttl: minutes.nullish(),
        refresh_on_read: z.boolean().nullish(),
        sweep_interval_minutes: minutes.nullish(),
      })
      .nullish(),
  })
  .strict();

/** langgraph.json's `checkpointer` key. */
export const checkpointerSchema = z
  .object({
    ttl: z
      .object({
        strategy: z.enum(['delete', 'keep_latest']).nullish(),
        default_ttl: minutes.nullish(),
        sweep_interval_minutes: minutes.nullish(),
        sweep_limit: z.number().int().positive().max(100_000).nullish(),
      })
      .nullish(),
  })
  .strict();

/** Sweep every hour unless told otherwise (as the Agent Server does), at most 1000 threads a sweep. */
const DEFAULT_SWEEP_MINUTES = 60;
const DEFAULT_SWEEP_LIMIT = 1000;

/**
 * The `store` and `checkpointer` keys of a parsed langgraph.json (`raw`), validated; every problem is an error
 * naming the key. `dir`: the file's directory.
 */
export function storageConfigOf(raw: { store?: unknown; checkpointer?: unknown }, dir: string, file = 'langgraph.json'): StorageConfig {
  const fail = (key: string, error: z.ZodError): never => {
    const problems = error.issues.map((i) => `${[key, ...i.path].join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: LANGGRAPH_CONFIG ${file}: ${problems}`);
  };
  const parse = <T>(key: string, schema: z.ZodType<T>, value: unknown): Partial<T> => {
    if (value == null) return {};
    const parsed = schema.safeParse(value);
    return parsed.success ? parsed.data : fail(key, parsed.error);
  };
  const s = parse('store', storeSchema, raw.store);
  const c = parse('checkpointer', checkpointerSchema, raw.checkpointer);
  return {
    dir,
    index: s.index ? { embed: s.index.embed, dims: s.index.dims, fields: s.index.fields ?? ['$'] } : undefined,
    storeTtl: s.ttl
      ? {
          defaultTtl: s.ttl.default_ttl ?? undefined,
          refreshOnRead: s.ttl.refresh_on_read ?? true,
          sweepIntervalMinutes: s.ttl.sweep_interval_minutes ?? DEFAULT_SWEEP_MINUTES,
        }
      : undefined,
    checkpointerTtl: c.ttl
      ? {
          strategy: c.ttl.strategy ?? 'delete',
          defaultTtl: c.ttl.default_ttl ?? undefined,
          sweepIntervalMinutes: c.ttl.sweep_interval_minutes ?? DEFAULT_SWEEP_MINUTES,
          sweepLimit: c.ttl.sweep_limit ?? DEFAULT_SWEEP_LIMIT,
        }
      : undefined,
  };
}

/** The storage configuration of the langgraph.json at `file` (none configured: an empty one). */
export function readStorageConfig(file: string | undefined): StorageConfig {
  if (!file) return { dir: process.cwd() };
  let raw: { store?: unknown; checkpointer?: unknown };
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as typeof raw;
  } catch (err) {
    throw new Error(`Invalid configuration: LANGGRAPH_CONFIG ${file}: ${(err as Error).message}`);
  }
  return storageConfigOf(raw ?? {}, path.dirname(file), file);
}
