import { Logger } from '@nestjs/common';

import { END_EVENT, type RunEvent, RunEventBus } from './run-event-bus';

interface RunLog {
  /** the window: the last `window` events, oldest first */
  events: RunEvent[];
  /** the length of each event of the window as JSON text, and their sum */
  sizes: number[];
  bytes: number;
  seq: number;
  /** when the run ended (ms since the epoch), or 0 */
  endedAt: number;
  subscribers: number;
  wake: Set<() => void>;
}

/** Run ids whose window was dropped, remembered so a late subscriber finishes at once (bounded). */
const EXPIRED_REMEMBERED = 10_000;
/** The windows of ended runs kept for replay, in JSON text of their events: the oldest go first beyond it. */
export const ENDED_BYTES_KEPT = 4 * 1024 * 1024;

/**
 * No Redis: one process runs and serves everything. Per run a ring buffer of the last `window` events and the
 * wake-up callbacks of its subscribers; each subscriber keeps its own cursor, so a slow one never holds up
 * `publish` (when it falls behind by more than the window it skips what was trimmed).
 *
 * An ended run's window stays replayable for `ttlMs`, and only while the ended windows together hold less
 * than `endedBytesKept` of events, oldest dropped first: so memory stays bounded whatever the rate of runs.
 * Expired windows are dropped as runs end (and seen as gone by a late subscriber), with no timer per run: a
 * timer would keep its run's async context (the run's logger, observation, store) alive until it fired.
 */
export class InProcessRunEventBus extends RunEventBus {
  private readonly logger = new Logger(InProcessRunEventBus.name);
  private readonly runs = new Map<string, RunLog>();
  /** the ended runs whose window is kept, oldest end first */
  private readonly ended = new Map<string, RunLog>();
  private endedBytes = 0;
  private readonly expired = new Set<string>();

  constructor(
    private readonly window: number,
    private readonly ttlMs: number,
    private readonly endedBytesKept = ENDED_BYTES_KEPT,
  ) {
    super();
  }

  publish(runId: string, event: string, data: unknown): void {
    try {
      const log = this.logOf(runId);
      if (log.endedAt) return;
      this.append(log, event, data);
    } catch (err) {
      this.logger.warn({ msg: 'run event not published', run_id: runId, event, err: (err as Error).message });
    }
  }

  end(runId: string): void {
    const log = this.logOf(runId);
    if (log.endedAt) return;
    this.append(log, END_EVENT, null);
    log.endedAt = Date.now();
    this.ended.set(runId, log);
    this.endedBytes += log.bytes;
    this.prune();
  }

  async *subscribe(runId: string, opts: { lastEventId?: string; signal?: AbortSignal } = {}): AsyncGenerator<RunEvent> {
    const { signal } = opts;
    let cursor = /^\d+$/.test(opts.lastEventId ?? '') ? Number(opts.lastEventId) : 0;
    this.prune();
    if (!this.runs.has(runId) && this.expired.has(runId)) return;
    const log = this.logOf(runId);
    log.subscribers += 1;
    try {
      for (;;) {
        if (signal?.aborted) return;
        // ids are consecutive: what comes after the cursor is a tail of the window (no scan of all of it per wake-up)
        const first = log.seq - log.events.length + 1;
        const pending = log.events.slice(Math.max(0, cursor - first + 1));
        for (const e of pending) {
          cursor = Number(e.id);
          if (e.event === END_EVENT) return;
          yield e;
          if (signal?.aborted) return;
        }
        if (pending.length > 0) continue; // more may have come while the consumer was busy
        if (log.endedAt) return;
        await this.changed(log, signal);
      }
    } finally {
      log.subscribers -= 1;
      // a subscriber of a run that never published leaves nothing behind
      if (log.subscribers === 0 && log.seq === 0 && this.runs.get(runId) === log) this.runs.delete(runId);
    }
  }

  /** Drops every window (shutdown). */
  onModuleDestroy(): void {
    for (const [id, log] of this.runs) {
      for (const wake of [...log.wake]) wake();
      this.runs.delete(id);
    }
    this.ended.clear();
    this.endedBytes = 0;
  }

  private logOf(runId: string): RunLog {
    let log = this.runs.get(runId);
    if (!log) {
      log = { events: [], sizes: [], bytes: 0, seq: 0, endedAt: 0, subscribers: 0, wake: new Set() };
      this.runs.set(runId, log);
      this.expired.delete(runId);
    }
    return log;
  }

  private append(log: RunLog, event: string, data: unknown): void {
    // plain JSON, as subscribers of the Redis bus get it: later changes to `data` do not leak into the window
    const text = data === undefined ? 'null' : JSON.stringify(data);
    log.seq += 1;
    log.events.push({ id: String(log.seq), event, data: JSON.parse(text) as unknown });
    log.sizes.push(text.length);
    log.bytes += text.length;
    if (log.events.length > this.window) {
      const trimmed = log.events.length - this.window;
      log.events.splice(0, trimmed);
      for (const size of log.sizes.splice(0, trimmed)) log.bytes -= size;
    }
    for (const wake of [...log.wake]) wake();
  }

  private changed(log: RunLog, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        log.wake.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      log.wake.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** Drops the ended windows past their time to live, then the oldest while they hold too much. */
  private prune(): void {
    const expiredBefore = Date.now() - this.ttlMs;
    for (const [runId, log] of this.ended) {
      if (log.endedAt > expiredBefore && this.endedBytes <= this.endedBytesKept) break;
      this.ended.delete(runId);
      this.endedBytes -= log.bytes;
      if (this.runs.get(runId) !== log) continue;
      this.runs.delete(runId);
      this.expired.add(runId);
      if (this.expired.size > EXPIRED_REMEMBERED) this.expired.delete(this.expired.values().next().value as string);
    }
  }
}
