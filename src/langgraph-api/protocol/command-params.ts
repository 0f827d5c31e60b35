import { z } from 'zod';

/**
 * The params of each command the service runs, read as leniently as the reference reads them (unknown fields
 * ignored) but refusing what it cannot act on, with the field named.
 */
const record = z.record(z.string(), z.unknown());
const namespace = z.array(z.string());
const strategy = z.enum(['reject', 'rollback', 'interrupt', 'enqueue']);
const update = z.union([record, z.array(z.tuple([z.string(), z.unknown()]))]);
const goto = z.union([z.string(), z.array(z.string())]);

export const RunStartParams = z.object({
  assistant_id: z.string({ message: 'run.start requires an assistant_id.' }).min(1, 'run.start requires an assistant_id.'),
  input: z.unknown().optional(),
  config: record.optional(),
  metadata: record.optional(),
  multitaskStrategy: strategy.optional(),
  // the SDK folds `forkFrom` into config.configurable.checkpoint_id; a raw client may send it here
  forkFrom: z.string().optional(),
});

const RespondOne = z.object({ interrupt_id: z.string(), response: z.unknown(), namespace: namespace.optional() });

export const InputRespondParams = z
  .object({
    interrupt_id: z.string().optional(),
    response: z.unknown().optional(),
    responses: z.array(RespondOne).min(1, 'input.respond requires at least one response.').optional(),
    update: update.optional(),
    goto: goto.optional(),
    config: record.optional(),
    metadata: record.optional(),
  })
  .refine((p) => p.responses || p.interrupt_id, 'input.respond requires an interrupt_id.');

export const InputInjectParams = z.object({
  namespace: namespace.optional(),
  message: z.object({ role: z.enum(['user', 'system']), content: z.string(), name: z.string().optional() }).passthrough(),
});

export const StateGetParams = z.object({ namespace: namespace.optional(), keys: z.array(z.string()).optional() });

export const ListCheckpointsParams = z.object({
  namespace: namespace.optional(),
  limit: z.number().int().min(1).max(1000).optional(),
  before: z.string().optional(),
});

export const StateForkParams = z.object({
  checkpoint_id: z.string().min(1, 'state.fork requires a checkpoint_id.'),
  input: z.unknown().optional(),
  config: record.optional(),
  assistant_id: z.string().optional(),
});

export const SubscribeParams = z.object({
  channels: z.array(z.string()).min(1, 'subscription.subscribe requires a non-empty channels array.'),
  namespaces: z.array(namespace).optional(),
  depth: z.number().int().nonnegative().optional(),
  since: z.number().int().nonnegative().optional(),
});

export const UnsubscribeParams = z.object({ subscription_id: z.string() });

/** The first problem of a refused params object, in words. */
export function problemOf(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid params';
  const at = issue.path.length ? `${issue.path.join('.')}: ` : '';
  return issue.message.endsWith('.') ? issue.message : `${at}${issue.message}`;
}
