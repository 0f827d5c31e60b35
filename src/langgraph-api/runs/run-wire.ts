import type { RunEntity } from '../../database/entities';
import type { ApiStreamMode } from './run-schemas';

/** The run has ended (a tool-approval pause has not: it goes on after the operator's decision). */
export { hasEnded } from '../../database/entities';

/** A run's status as LangGraph Server names it. */
export type ApiRunStatus = 'pending' | 'running' | 'error' | 'success' | 'timeout' | 'interrupted';

/**
 * queued → pending, running → running, completed → success, failed → error (RUN_TIMEOUT → timeout), cancelled →
 * interrupted (LangGraph Server marks a run cancelled with action `interrupt` so), interrupted → interrupted.
 */
export function apiStatusOf(run: Pick<RunEntity, 'status' | 'error'>): ApiRunStatus {
  switch (run.status) {
    case 'queued':
      return 'pending';
    case 'running':
      return 'running';
    case 'completed':
      return 'success';
    case 'failed':
      return run.error?.code === 'RUN_TIMEOUT' ? 'timeout' : 'error';
    default:
      return 'interrupted';
  }
}

/** Our failure codes whose error LangGraph Server names by the exception's class. */
const PLATFORM_ERROR_NAMES: Record<string, string> = { RECURSION_LIMIT: 'GraphRecursionError' };

/** A run's failure as LangGraph Server shows it (`__error__` of a wait, data of a stream's `error` event): `{ error, message }`. */
export function platformErrorOf(error: { code?: string; message?: string; name?: string } | null | undefined): {
  error: string;
  message: string;
} {
  const code = error?.code ?? 'Error';
  return { error: error?.name ?? PLATFORM_ERROR_NAMES[code] ?? code, message: error?.message ?? 'run failed' };
}

/** A wait's `__error__` as LangGraph Server sends it: an `Error` whose message is the JSON of the run's error. */
export function waitErrorOf(error: { code?: string; message?: string; name?: string } | null | undefined): {
  error: string;
  message: string;
} {
  return { error: 'Error', message: JSON.stringify(platformErrorOf(error)) };
}

/** Row statuses an API status stands for (list filter). */
export function rowStatusesOf(status: ApiRunStatus): string[] {
  return (
    {
      pending: ['queued'],
      running: ['running'],
      success: ['completed'],
      error: ['failed'],
      timeout: ['failed'],
      interrupted: ['cancelled', 'interrupted'],
    } as const
  )[status].slice();
}

/** The Run object of the API (`Run` in the SDK's schema). */
export function toApiRun(run: RunEntity): Record<string, unknown> {
  const lg = run.input.lg ?? {};
  return {
    run_id: run.id,
    thread_id: run.sessionId,
    assistant_id: (lg.assistant_id as string | undefined) ?? run.agent,
    created_at: run.createdAt.toISOString(),
    updated_at: (run.updatedAt ?? run.createdAt).toISOString(),
    status: apiStatusOf(run),
    metadata: (lg.metadata as Record<string, unknown> | undefined) ?? {},
    multitask_strategy: (lg.multitask_strategy as string | undefined) ?? 'reject',
    kwargs: {
      input: run.input.input ?? null,
      command: run.input.command ?? null,
      stream_mode: lg.stream_mode ?? ['values'],
      interrupt_before: run.input.interrupt_before ?? null,
      interrupt_after: run.input.interrupt_after ?? null,
      subgraphs: run.input.stream?.subgraphs ?? false,
      temporary: lg.temporary === true,
      webhook: lg.webhook ?? null,
      config: { configurable: run.input.configurable ?? {} },
      context: run.input.context ?? {},
    },
  };
}

/**
 * The API's stream modes as LangGraph stream modes: `messages` and `messages-tuple` both need `messages`, and
 * `messages` also `values` (a message is complete once it is in the state).
 */
export function graphModesOf(modes: ApiStreamMode[]): string[] {
  const out = new Set<string>();
  for (const m of modes) {
    if (m === 'messages-tuple') out.add('messages');
    else if (m === 'messages') out.add('messages').add('values');
    else if (m !== 'events') out.add(m);
  }
  return [...out];
}

/** The text of the last human message of a LangGraph input (`{role: user|human}` or `{type: human}`). */
export function lastHumanText(input: Record<string, unknown> | null | undefined): string | null {
  const messages = input?.messages;
  const list = Array.isArray(messages) ? messages : messages ? [messages] : [];
  for (let i = list.length - 1; i >= 0; i--) {
    const m = list[i] as Record<string, unknown> | string;
    if (typeof m === 'string') return m;
    const kind = m?.role ?? m?.type;
    if (kind !== 'user' && kind !== 'human') continue;
    return textOf(m.content);
  }
  return null;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) =>
      typeof p === 'string'
        ? p
        : p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string'
          ? (p as { text: string }).text
          : '',
    )
    .join('');
}

export interface SseEvent {
  id?: string;
  event: string;
  data: unknown;
}

/** A model's streamed chunk on the wire: a `…MessageChunk` type, or (an AI chunk) its `tool_call_chunks`. */
function isStreamedChunk(message: Record<string, unknown>): boolean {
  return /MessageChunk$/.test(String(message.type ?? '')) || Array.isArray(message.tool_call_chunks);
}

/**
 * Turns a run's chunks into what LangGraph Server sends for stream mode `messages`: from the model's streamed
 * chunks (`messages` chunks `[chunk, metadata]`), `messages/metadata` once per message and `messages/partial` with
 * the message so far on each chunk; from the state (`values` chunks), `messages/complete` with the messages that
 * are new in it (the input's ones too), each once.
 */
export class MessagesAccumulator {
  private readonly seen = new Map<string, Record<string, unknown>>();
  private readonly completed = new Set<string>();

  chunk(data: unknown, suffix: string, id?: string): SseEvent[] {
    const [message, metadata] = (Array.isArray(data) ? data : [data, {}]) as [Record<string, unknown>, unknown];
    if (!message || typeof message !== 'object' || !message.id) return [];
    // a node's returned message (not a model's streamed chunk) is complete already: the state announces it
    if (!isStreamedChunk(message)) return [];
    const key = String(message.id);
    const out: SseEvent[] = [];
    const before = this.seen.get(key);
    if (!before) out.push({ event: `messages/metadata${suffix}`, data: { [key]: { metadata } }, id });
    const type =
      String(message.type)
        .replace(/MessageChunk$/, '')
        .toLowerCase() || 'ai';
    const content =
      typeof message.content === 'string' && typeof before?.content === 'string' ? before.content + message.content : message.content;
    const merged = { ...(before ?? {}), ...message, type, content };
    this.seen.set(key, merged);
    out.push({ event: `messages/partial${suffix}`, data: [merged], id });
    return out;
  }

  /** `messages/complete` with the messages of a `values` chunk not completed before (none: no event). */
  values(data: unknown, id?: string): SseEvent[] {
    const state = data as { messages?: unknown } | null;
    const messages = state && typeof state === 'object' && !Array.isArray(state) ? state.messages : undefined;
    const list = (Array.isArray(messages) ? messages : messages ? [messages] : []) as Array<Record<string, unknown>>;
    const fresh = list.filter((m) => m && typeof m === 'object' && m.id && !this.completed.has(String(m.id)));
    for (const m of fresh) this.completed.add(String(m.id));
    return fresh.length ? [{ event: 'messages/complete', data: fresh, id }] : [];
  }
}
