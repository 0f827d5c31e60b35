import { threadIdOf } from '../../auth/tenant';
import type { RunEvent } from '../../events/run-event-bus';
import type { ApiStreamMode } from './run-schemas';
import { apiChunkOf } from './run-stream-shapes';
import { MessagesAccumulator, platformErrorOf, type SseEvent } from './run-wire';

/**
 * A run's events as the LangGraph API streams them — rendering only: the events come from the run service
 * (RunsService.runEvents), whichever process executes the run.
 */

/** Stream modes whose chunks carry the run's config or metadata, hence its checkpoint `thread_id`. */
const THREAD_ID_MODES = new Set(['messages', 'events', 'debug', 'checkpoints', 'tasks']);

/**
 * Chunks name the checkpoint thread (`{tenant}:{thread}`, see threadIdOf) in `thread_id` (message metadata,
 * `events` metadata, checkpoint configs); a client knows the thread by its API id. Replaces exactly that value,
 * a few levels deep, in copies.
 */
function apiThreadIds(internal: string, api: string): (data: unknown) => unknown {
  const fix = (v: unknown, depth: number): unknown => {
    if (depth > 5 || !v || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map((x) => fix(x, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = k === 'thread_id' && x === internal ? api : fix(x, depth + 1);
    return out;
  };
  return (data) => fix(data, 0);
}

/** The stream mode an API event belongs to (`messages/partial` → messages, `updates|ns` → updates). */
function modeOfEvent(event: string): string {
  const mode = event.split('|')[0];
  return mode.startsWith('messages/') ? 'messages' : mode === 'messages' ? 'messages-tuple' : mode;
}

/**
 * The run's events as LangGraph Server streams them: `metadata` `{ run_id, attempt }`, then one event per chunk of
 * each requested mode (`messages-tuple` → `messages` events, `messages` → `messages/metadata|partial|complete`,
 * `mode|ns` from subgraphs, `events`: LangChain `streamEvents` v2 events), `error` `{ error, message }` when the run failed. After `lastEventId` when given.
 * With `pauses`, a `pause` event each time the run parks for a tool approval (the A2A dialect's input-required).
 */
export async function* apiRunEvents(
  events: AsyncIterable<RunEvent>,
  runId: string,
  modes: ApiStreamMode[] | null,
  opts: { lastEventId?: string; tenantId: string; threadId: string; only?: string[]; pauses?: boolean },
): AsyncGenerator<SseEvent> {
  // a join asking for some modes only gets theirs, numbered as in the whole stream
  const only = opts.only?.length ? new Set(opts.only) : null;
  // event ids as LangGraph Server numbers them: 0, 1, 2… over the events of this stream; a client resuming after
  // id N gets the same events recounted from the run's first one (its `metadata`), those after N
  let after = /^\d+$/.test(opts.lastEventId ?? '') ? Number(opts.lastEventId) : -1;
  let n = 0;
  for await (const e of apiEvents(events, runId, modes, opts)) {
    // the bus no longer holds the run's first events (beyond RUN_EVENTS_WINDOW): what it holds, none skipped
    if (n === 0 && e.event !== 'metadata') after = -1;
    const id = n++;
    if (id > after && (!only || e.event === 'metadata' || only.has(modeOfEvent(e.event)))) yield { ...e, id: String(id) };
  }
}

/** The run's bus events rendered as LangGraph Server's stream events (not numbered yet). */
async function* apiEvents(
  events: AsyncIterable<RunEvent>,
  runId: string,
  modes: ApiStreamMode[] | null,
  opts: { tenantId: string; threadId: string; pauses?: boolean },
): AsyncGenerator<SseEvent> {
  const toApiThread = apiThreadIds(threadIdOf(opts.tenantId, opts.threadId), opts.threadId);
  const accumulator = new MessagesAccumulator();
  const wanted = modes ? new Set<string>(modes) : null;
  const asTuple = !wanted || wanted.has('messages-tuple');
  for await (const raw of events) {
    const [mode, ...ns] = raw.event.split('|');
    const e = THREAD_ID_MODES.has(mode) ? { ...raw, data: toApiThread(raw.data) } : raw;
    const suffix = ns.length ? `|${ns.join('|')}` : '';
    if (mode === 'metadata') {
      const { run_id, attempt } = (e.data ?? {}) as { run_id?: string; attempt?: number };
      yield { id: e.id, event: 'metadata', data: { run_id: run_id ?? runId, attempt: attempt ?? 1 } };
    } else if (mode === 'interrupt') {
      // a run parked for a tool approval (not an end): only for a reader that asked (LangGraph Server has no such event)
      if (opts.pauses) yield { id: e.id, event: 'pause', data: null };
    } else if (mode === 'messages') {
      if (asTuple) yield { id: e.id, event: `messages${suffix}`, data: e.data };
      if (wanted?.has('messages')) yield* accumulator.chunk(e.data, suffix, e.id);
    } else if (mode === 'result') {
      const error = (e.data as { error?: { code?: string; message?: string } | null } | null)?.error;
      if (error && error.code !== 'CANCELLED') yield { id: e.id, event: 'error', data: platformErrorOf(error) };
      return;
    } else if (mode === 'values' && wanted?.has('messages')) {
      // as LangGraph Server: the state first, then the messages it completes
      if (wanted.has('values')) yield { id: e.id, event: e.event, data: e.data };
      yield* accumulator.values(e.data, e.id);
    } else if (['values', 'updates', 'custom', 'debug', 'tasks', 'checkpoints', 'events'].includes(mode) && (!wanted || wanted.has(mode))) {
      yield { id: e.id, event: e.event, data: apiChunkOf(mode, e.data) };
    }
  }
}
