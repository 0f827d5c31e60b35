/**
 * The run event bus: what a run does (metadata, node progress, tokens, graph stream chunks, result), carried
 * from whichever process executes the run to whichever API process a client is connected to.
 *
 * - `RedisRunEventBus` (REDIS_URL set): one Redis stream per run, `run-events:{QUEUE_PREFIX}:{runId}`, trimmed
 *   to about RUN_EVENTS_WINDOW entries and expiring RUN_EVENTS_TTL_S after the run ended; event ids are the
 *   stream ids (`1700000000000-0`).
 * - `InProcessRunEventBus` (no Redis): a ring buffer of RUN_EVENTS_WINDOW events per run with listeners; ids
 *   are increasing decimal strings; a run's buffer is dropped RUN_EVENTS_TTL_S after it ended.
 *
 * Events a run publishes (see AgentOrchestrator.execute): `metadata` `{ run_id, session_id, agent, attempt }`,
 * `progress` `{ run_id, node, step }` per graph step, `token` `{ node, content }` when the run asked for tokens,
 * one event per chunk of each LangGraph stream mode the run asked for (`updates`, `messages`, `custom`, …, or
 * `mode|namespace` from subgraphs; data in LangGraph Server's wire format, see wire.ts), `events` (LangChain
 * `streamEvents` v2 objects, when the run asked for them: see graph-events.ts), `interrupt` when the
 * run pauses for an approval, `result` (the ChatResult) and then `end`.
 */
export interface RunEvent {
  id: string;
  event: string;
  data: unknown;
  /** `data` as the bus encoded it (JSON), when it has it: a writer sends this instead of encoding `data` again */
  json?: string;
}

/** The terminal event of every run; `subscribe` stops at it and does not yield it. */
export const END_EVENT = 'end';

export abstract class RunEventBus {
  /** Ordered per run, never blocks or throws into the run (errors logged). */
  abstract publish(runId: string, event: string, data: unknown): void;
  /** The run ended: publishes the terminal `end` event and lets the window expire (RUN_EVENTS_TTL_S). */
  abstract end(runId: string): void;
  /**
   * Replays the window after `lastEventId` (all of it when absent), then live events, until `end` (not yielded)
   * or `signal` aborts. A run that has already ended yields what is left of its window and finishes; a run
   * whose window has expired finishes at once (callers then read the stored run).
   *
   * `here`: this process executes the run (the promise settles when that execution is over), so its events are
   * published here and may be handed over as they are written instead of being read back (same ids, same order).
   */
  abstract subscribe(runId: string, opts?: SubscribeOptions): AsyncIterable<RunEvent>;
}

export interface SubscribeOptions {
  lastEventId?: string;
  signal?: AbortSignal;
  here?: Promise<unknown>;
}
