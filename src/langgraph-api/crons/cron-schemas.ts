import { z } from 'zod';

import { boundedFilter } from '../filter-bounds';
import { webhookUrl } from '../runs/run-schemas';
import { RunnableConfigSchema } from '../schemas';

/**
 * Bodies of `/runs/crons...` and `/threads/{id}/runs/crons`, field for field as `@langchain/langgraph-sdk`'s
 * CronsClient sends them. The run options are kept in the cron's payload (shown back to the client) and each
 * tick passes them to the runs service as a run body (`POST /threads/{id}/runs` / `POST /runs`).
 */
const record = z.record(z.string(), z.unknown());
const stringOrList = z.union([z.string(), z.array(z.string())]);
const runOptions = {
  input: z.unknown().optional(),
  config: RunnableConfigSchema.nullish(),
  context: z.unknown().optional(),
  metadata: record.nullish(),
  interrupt_before: z.union([z.literal('*'), z.array(z.string())]).nullish(),
  interrupt_after: z.union([z.literal('*'), z.array(z.string())]).nullish(),
  webhook: webhookUrl.nullish(),
  multitask_strategy: z.enum(['reject', 'interrupt', 'rollback', 'enqueue']).nullish(),
  checkpoint_during: z.boolean().nullish(),
  durability: z.enum(['exit', 'async', 'sync']).nullish(),
  stream_mode: stringOrList.nullish(),
  stream_subgraphs: z.boolean().nullish(),
  stream_resumable: z.boolean().nullish(),
};
const onRunCompleted = z.enum(['delete', 'keep']).nullish();
const endTime = z.iso.datetime({ offset: true }).nullish();

export const CronCreate = z.object({
  schedule: z.string().min(1).max(200),
  assistant_id: z.string().min(1).max(128),
  timezone: z.string().max(64).nullish(),
  end_time: endTime,
  enabled: z.boolean().nullish(),
  on_run_completed: onRunCompleted,
  ...runOptions,
});
export type CronCreateBody = z.infer<typeof CronCreate>;

export const CronPatch = z.object({
  schedule: z.string().min(1).max(200).nullish(),
  timezone: z.string().max(64).nullish(),
  end_time: endTime,
  enabled: z.boolean().nullish(),
  on_run_completed: onRunCompleted,
  ...runOptions,
});
export type CronPatchBody = z.infer<typeof CronPatch>;

const filter = {
  assistant_id: z.string().nullish(),
  thread_id: z.string().nullish(),
  metadata: boundedFilter.nullish(),
};

export const CronSearch = z.object({
  ...filter,
  enabled: z.boolean().nullish(),
  limit: z
    .number()
    .int()
    .gte(1)
    .lte(1000)
    .nullish()
    .transform((v) => v ?? 10),
  offset: z
    .number()
    .int()
    .gte(0)
    .nullish()
    .transform((v) => v ?? 0),
  sort_by: z.enum(['cron_id', 'assistant_id', 'thread_id', 'created_at', 'updated_at', 'next_run_date']).nullish(),
  sort_order: z.enum(['asc', 'desc']).nullish(),
  select: z.array(z.string()).nullish(),
});
export type CronSearchBody = z.infer<typeof CronSearch>;

export const CronCount = z.object(filter);
export type CronCountBody = z.infer<typeof CronCount>;

/** The run options of a body that go into the cron's payload (nulls and absent fields left out). */
export function payloadOf(body: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(runOptions);
  return Object.fromEntries(keys.filter((k) => body[k] != null).map((k) => [k, body[k]]));
}
