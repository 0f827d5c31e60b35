/**
 * The thread event protocol's per-thread log: every event of a thread's runs, numbered once (`seq`, 1, 2, …) by the
 * process that executes the run, at publish time. Any API process reads it after a `since` and then live, so a
 * client reconnecting elsewhere gets the same numbers, in order, none missing or repeated.
 *
 * - `RedisThreadEventLog` (REDIS_URL set): one Redis stream per thread whose entry ids are `<seq>-0`, numbered
 *   by an `INCR` counter in the same script, trimmed to about RUN_EVENTS_WINDOW entries, expiring
 *   RUN_EVENTS_TTL_S after its last event (the counter outlives it).
 * - `InProcessThreadEventLog` (no Redis): a ring buffer per thread, dropped RUN_EVENTS_TTL_S after its last event.
 */
export interface ThreadLogEvent {
  seq: number;
  method: string;
  params: { namespace: string[]; timestamp: number; node?: string; data: unknown };
}

export type ThreadLogEntry = Omit<ThreadLogEvent, 'seq'>;

export interface ThreadLogReadOptions {
  /** events after this seq (from the oldest kept when absent) */
  since?: number;
  /** stops the read (it never ends by itself: a thread may always have another run) */
  signal?: AbortSignal;
}

export abstract class ThreadEventLog {
  /** Appends in call order per thread and numbers the event; never blocks or throws into the run. */
  abstract append(thread: string, entry: ThreadLogEntry): void;
  /** The thread's events after `since`, then live ones, until `signal` aborts. */
  abstract read(thread: string, opts: ThreadLogReadOptions): AsyncIterable<ThreadLogEvent>;
  /** The last seq given on the thread (0 when none), counting appends not yet written. */
  abstract head(thread: string): Promise<number>;
}

/** The log key of a thread: tenants never share one. */
export function threadLogKey(tenantId: string, threadId: string): string {
  return `${tenantId}/${threadId}`;
}
