import { z } from 'zod';

import { boundedFilter } from './filter-bounds';

/**
 * Request bodies of the LangGraph Server API, as `@langchain/langgraph-sdk`'s Client sends them (field for
 * field from langgraphjs `libs/langgraph-api/src/schemas.mts`). Unknown fields are stripped.
 */
const record = z.record(z.string(), z.unknown());
const ids = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'ids are 1–128 characters of [A-Za-z0-9._:-]');
const limit = (max: number, dflt: number) =>
  z
    .number()
    .int()
    .gte(1)
    .lte(max)
    .nullish()
    .transform((v) => v ?? dflt);
const offset = z
  .number()
  .int()
  .gte(0)
  .nullish()
  .transform((v) => v ?? 0);
const ifExists = z.enum(['raise', 'do_nothing']).nullish();
const sortOrder = z.enum(['asc', 'desc']).nullish();

export const RunnableConfigSchema = z.object({
  tags: z.array(z.string()).optional(),
  metadata: record.optional(),
  run_name: z.string().optional(),
  max_concurrency: z.number().optional(),
  recursion_limit: z.number().int().gte(1).lte(10_000).optional(),
  configurable: record.optional(),
  run_id: z.string().optional(),
});

export const AssistantCreate = z.object({
  assistant_id: ids.nullish(),
  graph_id: z.string().min(1),
  config: RunnableConfigSchema.nullish(),
  context: z.unknown().optional(),
  metadata: record.nullish(),
  if_exists: ifExists,
  name: z.string().max(1000).nullish(),
  description: z.string().max(10_000).nullish(),
});
export type AssistantCreateBody = z.infer<typeof AssistantCreate>;

export const AssistantPatch = z.object({
  graph_id: z.string().min(1).nullish(),
  config: RunnableConfigSchema.nullish(),
  context: z.unknown().optional(),
  metadata: record.nullish(),
  name: z.string().max(1000).nullish(),
  description: z.string().max(10_000).nullish(),
});
export type AssistantPatchBody = z.infer<typeof AssistantPatch>;

export const AssistantSearch = z.object({
  graph_id: z.string().nullish(),
  name: z.string().nullish(),
  metadata: boundedFilter.nullish(),
  limit: limit(1000, 10),
  offset,
  sort_by: z.enum(['assistant_id', 'graph_id', 'name', 'created_at', 'updated_at']).nullish(),
  sort_order: sortOrder,
  select: z.array(z.string()).nullish(),
});
export type AssistantSearchBody = z.infer<typeof AssistantSearch>;

export const AssistantCount = z.object({ graph_id: z.string().nullish(), name: z.string().nullish(), metadata: boundedFilter.nullish() });

export const AssistantVersions = z.object({ metadata: boundedFilter.nullish(), limit: limit(1000, 10), offset });

export const AssistantLatest = z.object({ version: z.number().int().gte(1) });

const threadStatus = z.enum(['idle', 'busy', 'interrupted', 'error']);

export const ThreadCreate = z.object({
  thread_id: ids.nullish(),
  metadata: record.nullish(),
  if_exists: ifExists,
  // the new thread's first checkpoints: each superstep's updates applied as one step (graph of `metadata.graph_id`)
  supersteps: z
    .array(
      z.object({
        updates: z.array(z.object({ values: z.unknown().optional(), command: record.nullish(), as_node: z.string() })),
      }),
    )
    .nullish(),
  ttl: z.unknown().optional(),
});
export type ThreadCreateBody = z.infer<typeof ThreadCreate>;

export const ThreadPatch = z.object({ metadata: record.nullish(), ttl: z.unknown().optional() });

export const ThreadSearch = z.object({
  metadata: boundedFilter.nullish(),
  values: boundedFilter.nullish(),
  ids: z.array(z.string()).nullish(),
  status: threadStatus.nullish(),
  limit: limit(1000, 10),
  offset,
  sort_by: z.enum(['thread_id', 'status', 'created_at', 'updated_at', 'state_updated_at']).nullish(),
  sort_order: sortOrder,
  select: z.array(z.string()).nullish(),
  extract: z.unknown().optional(),
});
export type ThreadSearchBody = z.infer<typeof ThreadSearch>;

export const ThreadCount = z.object({ metadata: boundedFilter.nullish(), values: boundedFilter.nullish(), status: threadStatus.nullish() });

export const CheckpointSchema = z.object({
  checkpoint_id: z.string().nullish(),
  checkpoint_ns: z.string().nullish(),
  checkpoint_map: record.nullish(),
  // the SDK echoes the checkpoint it got, thread id included; the path's thread is the one used
  thread_id: z.string().nullish(),
});
export type CheckpointRef = z.infer<typeof CheckpointSchema>;

export const StateUpdate = z.object({
  values: z.union([record, z.array(record)]).nullish(),
  as_node: z.string().nullish(),
  checkpoint_id: z.string().nullish(),
  checkpoint: CheckpointSchema.nullish(),
});
export type StateUpdateBody = z.infer<typeof StateUpdate>;

export const StateAtCheckpoint = z.object({
  checkpoint: CheckpointSchema.nullish(),
  subgraphs: z.boolean().nullish(),
  select: z.array(z.string()).nullish(),
});

export const HistoryRequest = z.object({
  limit: limit(1000, 10),
  before: z.union([z.string(), z.object({ configurable: record.optional() }).loose()]).nullish(),
  metadata: boundedFilter.nullish(),
  checkpoint: CheckpointSchema.nullish(),
  select: z.array(z.string()).nullish(),
});
export type HistoryRequestBody = z.infer<typeof HistoryRequest>;

const namespace = z.array(z.string());

/** A store item's longest `ttl`: 100 years, in minutes (far larger ones are past what a Date or a Postgres timestamp holds). */
const MAX_TTL_MINUTES = 100 * 366 * 24 * 60;

export const StorePut = z.object({
  namespace,
  key: z.string().min(1),
  value: record,
  index: z.union([z.literal(false), z.array(z.string())]).nullish(),
  /** minutes until the item expires; null or absent: never */
  ttl: z.number().positive().max(MAX_TTL_MINUTES).nullish(),
});

export const StoreDelete = z.object({ namespace: namespace.nullish(), key: z.string().min(1) });

export const StoreGet = z.object({
  namespace: z
    .string()
    .nullish()
    .transform((v) => (v ? v.split('.') : [])),
  key: z.string().min(1),
  /** `true`/`false`: whether this read pushes the item's expiry out by its TTL again (default: `store.ttl.refresh_on_read`) */
  refresh_ttl: z
    .string()
    .regex(/^(true|false|1|0)$/i, 'true or false')
    .nullish()
    .transform((v) => (v == null ? undefined : /^(true|1)$/i.test(v))),
});

export const StoreSearch = z.object({
  namespace_prefix: namespace.nullish().transform((v) => v ?? []),
  filter: boundedFilter.nullish(),
  limit: limit(1000, 10),
  offset,
  query: z.string().max(10_000).nullish(),
  /** whether the items found get their expiry pushed out by their TTL again (default: `store.ttl.refresh_on_read`) */
  refresh_ttl: z.boolean().nullish(),
});

export const StoreNamespaces = z.object({
  prefix: namespace.nullish(),
  suffix: namespace.nullish(),
  max_depth: z.number().int().gte(1).nullish(),
  limit: limit(1000, 100),
  offset,
});

/** `?xray=true|1|yes` (or a depth) as the reference reads it */
export function queryBool(v: unknown): boolean {
  return typeof v === 'string' && ['true', '1', 'yes'].includes(v.toLowerCase());
}
export type AssistantCountBody = z.infer<typeof AssistantCount>;
export type AssistantVersionsBody = z.infer<typeof AssistantVersions>;
export type AssistantLatestBody = z.infer<typeof AssistantLatest>;
export type ThreadPatchBody = z.infer<typeof ThreadPatch>;
export type ThreadCountBody = z.infer<typeof ThreadCount>;
export type StateAtCheckpointBody = z.infer<typeof StateAtCheckpoint>;
export type StorePutBody = z.infer<typeof StorePut>;
export type StoreDeleteBody = z.infer<typeof StoreDelete>;
export type StoreGetQuery = z.infer<typeof StoreGet>;
export type StoreSearchBody = z.infer<typeof StoreSearch>;
export type StoreNamespacesBody = z.infer<typeof StoreNamespaces>;
