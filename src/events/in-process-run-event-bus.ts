import { Logger } from '@nestjs/common';

import { END_EVENT, type RunEvent, RunEventBus } from './run-event-bus';

interface RunLog {
  /** the window: the last `window` events, oldest first */
  events: RunEvent[];
  seq: number;
  ended: boolean;
  subscribers: number;
  wake: Set<() => void>;
  drop?: NodeJS.Timeout;
}

/** Run ids whose window was dropped, remembered so a late subscriber finishes at once (bounded). */
const EXPIRED_REMEMBERED = 10_000;

/**
 * No Redis: one process runs and serves everything. Per run a ring buffer of the last `window` events and the
 * wake-up callbacks of its subscribers; each subscriber keeps its own cursor, so a slow one never holds up
 * `publish` (when it falls behind by more than the window it skips what was trimmed).
 */
export class InProcessRunEventBus extends RunEventBus {
  private readonly logger = new Logger(InProcessRunEventBus.name);
  private readonly runs = new Map<string, RunLog>();
  private readonly expired = new Set<string>();

  constructor(
    private readonly window: number,
    private readonly ttlMs: number,
  ) {
    super();
  }

  publish(runId: string, event: string, data: unknown): void {
    try {
      const log = this.logOf(runId);
      if (log.ended) return;
      this.append(log, event, data);
    } catch (err) {
      this.logger.warn({ msg: 'run event not published', run_id: runId, event, err: (err as Error).message });
    }
  }

  end(runId: string): void {
    const log = this.logOf(runId);
    if (log.ended) return;
    this.append(log, END_EVENT, null);
    log.ended = true;
    log.drop = setTimeout(() => this.drop(runId, log), this.ttlMs);
    log.drop.unref();
  }

  async *subscribe(runId: string, opts: { lastEventId?: string; signal?: AbortSignal } = {}): AsyncGenerator<RunEvent> {
    const { signal } = opts;
    let cursor = /^\d+$/.test(opts.lastEventId ?? '') ? Number(opts.lastEventId) : 0;
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
        if (log.ended) return;
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
      clearTimeout(log.drop);
      for (const wake of [...log.wake]) wake();
      this.runs.delete(id);
    }
  }

  private logOf(runId: string): RunLog {
    let log = this.runs.get(runId);
    if (!log) {
      log = { events: [], seq: 0, ended: false, subscribers: 0, wake: new Set() };
      this.runs.set(runId, log);
      this.expired.delete(runId);
    }
    return log;
  }

  private append(log: RunLog, event: string, data: unknown): void {
    // plain JSON, as subscribers of the Redis bus get it: later changes to `data` do not leak into the window
    const json = data === undefined ? null : (JSON.parse(JSON.stringify(data)) as unknown);
    log.seq += 1;
    log.events.push({ id: String(log.seq), event, data: json });
    if (log.events.length > this.window) log.events.splice(0, log.events.length - this.window);
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

  private drop(runId: string, log: RunLog): void {
    if (this.runs.get(runId) !== log) return;
    this.runs.delete(runId);
    this.expired.add(runId);
    if (this.expired.size > EXPIRED_REMEMBERED) this.expired.delete(this.expired.values().next().value as string);
  }
}
