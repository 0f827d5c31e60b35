import { z } from 'zod';

import { supportedChannel } from '../event-filter';
import type { ErrorEnvelope, EventFilter, ProtocolCommand } from '../protocol-types';

/**
 * What a WebSocket frame of the thread event protocol may be: one command, `{ id, method, params? }`, as JSON
 * text (or UTF-8 bytes). Everything else is answered with an `invalid_argument` error envelope (`id: null` when
 * the frame has no usable id), as the reference server answers it; the socket stays open.
 */
const Command = z
  .object({
    id: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
    method: z.string().min(1).max(64),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

const Namespaces = z.array(z.array(z.string().max(256)).max(32)).max(32);

/** `subscription.subscribe`'s params: a filter on the thread's events (`since`: replay after this seq). */
const Subscribe = z
  .object({
    channels: z
      .array(z.string().max(128))
      .min(1)
      .max(32)
      .refine((cs) => cs.every((c) => supportedChannel(c)), 'subscription.subscribe received an unsupported channel.'),
    namespaces: Namespaces.optional(),
    depth: z.number().int().nonnegative().max(64).optional(),
    since: z.number().int().nonnegative().optional(),
  })
  .strict();

const Unsubscribe = z.object({ subscription_id: z.string().min(1).max(128) }).strict();

export type Parsed<T> = { ok: T } | { refused: ErrorEnvelope };

const invalid = (id: number | null, message: string): { refused: ErrorEnvelope } => ({
  refused: { type: 'error', id, error: 'invalid_argument', message },
});

/** A frame's text: a text frame as it is, a binary one as UTF-8 (bytes that are not UTF-8 are refused). */
export function frameText(data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): string | undefined {
  const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
  if (!isBinary) return bytes.toString('utf8');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** One frame's command, or the error envelope that answers it. */
export function parseCommand(text: string | undefined): Parsed<ProtocolCommand> {
  let payload: unknown;
  try {
    payload = JSON.parse(text ?? '');
  } catch {
    return invalid(null, 'Protocol commands must be valid JSON.');
  }
  const parsed = Command.safeParse(payload);
  if (parsed.success) return { ok: parsed.data as ProtocolCommand };
  const id = (payload as { id?: unknown } | null)?.id;
  const usableId = Number.isSafeInteger(id) && (id as number) >= 0 ? (id as number) : null;
  return invalid(usableId, 'Protocol commands must be an object with an integer id, a string method and optional object params.');
}

/** `subscription.subscribe`'s filter, or the error envelope that answers it. */
export function parseSubscribe(cmd: ProtocolCommand): Parsed<EventFilter> {
  const parsed = Subscribe.safeParse(cmd.params ?? {});
  if (parsed.success) return { ok: parsed.data };
  const channelProblem = parsed.error.issues.find((i) => i.path[0] === 'channels');
  return invalid(
    cmd.id,
    channelProblem?.code === 'custom'
      ? channelProblem.message
      : 'subscription.subscribe requires a non-empty channels array, and optional namespaces, depth and since.',
  );
}

/** `subscription.unsubscribe`'s subscription id, or the error envelope that answers it. */
export function parseUnsubscribe(cmd: ProtocolCommand): Parsed<string> {
  const parsed = Unsubscribe.safeParse(cmd.params ?? {});
  return parsed.success ? { ok: parsed.data.subscription_id } : invalid(cmd.id, 'subscription.unsubscribe requires a subscription_id.');
}
