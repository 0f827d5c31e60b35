import { z } from 'zod';

import { CheckpointSchema, RunnableConfigSchema } from '../schemas';

/**
 * Bodies of the runs endpoints, as `@langchain/langgraph-sdk`'s RunsClient sends them (langgraphjs
 * `libs/langgraph-api/src/schemas.mts` `RunCreate`). Accepted for compatibility but not applied: `feedback_keys` (as the
 * reference server without LangSmith), `strict_resume`, `checkpoint_during`, `langsmith_tracer`; `stream_resumable` is
 * what every run is (its events stay in the bus's replay window).
 */
const record = z.record(z.string(), z.unknown());
/** an http(s) URL, or a path of langgraph.json's http.app (`/custom/webhook`, sent to it in process) */
export const webhookUrl = z.union([z.string().url(), z.string().regex(/^\/(?!\/)/, 'an absolute URL or a path starting with "/"')]);
const nodes = z.union([z.literal('*'), z.array(z.string())]);
export const STREAM_MODES = [
  'values',
  'messages',
  'messages-tuple',
  'updates',
  'events',
  'debug',
  'custom',
  'tasks',
  'checkpoints',
] as const;
export type ApiStreamMode = (typeof STREAM_MODES)[number];
const streamMode = z.enum(STREAM_MODES);

export const CommandSchema = z.object({
  resume: z.unknown().optional(),
  update: z.union([record, z.array(z.tuple([z.string(), z.unknown()]))]).nullish(),
  goto: z.union([z.string(), z.array(z.string())]).nullish(),
});

export const RunCreate = z.object({
  assistant_id: z.string().min(1).max(256),
  input: z.union([record, z.null()]).optional(),
  command: CommandSchema.nullish(),
  checkpoint: CheckpointSchema.nullish(),
  checkpoint_id: z.string().nullish(),
  config: RunnableConfigSchema.nullish(),
  context: z.unknown().optional(),
  metadata: record.nullish(),
  stream_mode: z.union([streamMode, z.array(streamMode)]).nullish(),
  stream_subgraphs: z.boolean().nullish(),
  stream_resumable: z.boolean().nullish(),
  interrupt_before: nodes.nullish(),
  interrupt_after: nodes.nullish(),
  multitask_strategy: z.enum(['reject', 'rollback', 'interrupt', 'enqueue']).nullish(),
  on_completion: z.enum(['delete', 'keep']).nullish(),
  on_disconnect: z.enum(['cancel', 'continue']).nullish(),
  if_not_exists: z.enum(['reject', 'create']).nullish(),
  after_seconds: z.number().gte(0).nullish(),
  webhook: webhookUrl.nullish(),
  feedback_keys: z.unknown().optional(),
  strict_resume: z.unknown().optional(),
  checkpoint_during: z.unknown().optional(),
  durability: z.enum(['exit', 'async', 'sync']).nullish(),
  langsmith_tracer: z.unknown().optional(),
});
export type RunCreateBody = z.infer<typeof RunCreate>;

/** What a run passes to the graph besides its input (`RunInput.lg.graph_options`, read by the orchestrator). */
export function graphOptionsOf(body: RunCreateBody, assistantConfig: unknown): Record<string, unknown> | undefined {
  const fromAssistant = (assistantConfig ?? {}) as { tags?: string[]; recursion_limit?: number };
  const tags = [...(fromAssistant.tags ?? []), ...(body.config?.tags ?? [])];
  const recursionLimit = body.config?.recursion_limit ?? fromAssistant.recursion_limit;
  const out = {
    ...(tags.length ? { tags: [...new Set(tags)] } : {}),
    ...(recursionLimit ? { recursion_limit: recursionLimit } : {}),
    ...(body.durability ? { durability: body.durability } : {}),
  };
  return Object.keys(out).length ? out : undefined;
}

export const RunBatchCreate = z.array(RunCreate).min(1).max(100);

/** The fields of a Run a listing may be narrowed to (the SDK's `RunSelectField`). */
export const RUN_FIELDS = [
  'run_id',
  'thread_id',
  'assistant_id',
  'created_at',
  'updated_at',
  'status',
  'metadata',
  'kwargs',
  'multitask_strategy',
  'cancel_reason',
] as const;

export const RunListQuery = z.object({
  limit: z.coerce.number().int().gte(1).lte(1000).default(10),
  offset: z.coerce.number().int().gte(0).default(0),
  status: z.enum(['pending', 'running', 'error', 'success', 'timeout', 'interrupted']).nullish(),
  // `select=run_id&select=status` (or once): only those fields of each run
  select: z.preprocess((v) => (v === undefined || Array.isArray(v) ? v : [v]), z.array(z.enum(RUN_FIELDS)).optional()),
});
export type RunListQueryValue = z.infer<typeof RunListQuery>;

/** Only the `select`ed fields of each item (all of them without `select`). */
export function selected(items: Array<Record<string, unknown>>, select: readonly string[] | undefined): Array<Record<string, unknown>> {
  return select?.length ? items.map((i) => Object.fromEntries(Object.entries(i).filter(([k]) => select.includes(k)))) : items;
}

/** `POST /runs/cancel` (the SDK's `cancelMany`): runs of a thread by id, or every run of a status. */
export const RunCancelMany = z
  .object({
    thread_id: z.string().nullish(),
    run_ids: z.array(z.string()).max(1000).nullish(),
    status: z.enum(['pending', 'running', 'all']).nullish(),
  })
  .refine((b) => (b.thread_id && b.run_ids?.length) || b.status, {
    message: 'either thread_id and run_ids, or status, must be given',
  });
export type RunCancelManyBody = z.infer<typeof RunCancelMany>;

export const CancelManyQuery = z.object({ action: z.enum(['interrupt', 'rollback']).default('interrupt') });

export const CancelQuery = z.object({
  wait: z
    .string()
    .optional()
    .transform((v) => v === '1' || v === 'true'),
  action: z.enum(['interrupt', 'rollback']).default('interrupt'),
});
