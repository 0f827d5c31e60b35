import { ThreadEventLog, type ThreadLogEntry, type ThreadLogEvent, type ThreadLogReadOptions } from './thread-event-log';

interface Log {
  seq: number;
  events: ThreadLogEvent[];
  lastAt: number;
  wake: Set<() => void>;
}

/** No Redis: one process runs and serves everything; a ring buffer per thread, idle ones dropped after `ttlMs`. */
export class InProcessThreadEventLog extends ThreadEventLog {
  private readonly logs = new Map<string, Log>();
  /** the last seq of dropped logs, so numbering goes on (bounded by the number of threads seen) */
  private readonly heads = new Map<string, number>();

  constructor(
    private readonly window: number,
    private readonly ttlMs: number,
  ) {
    super();
  }

  append(thread: string, entry: ThreadLogEntry): void {
    const log = this.logOf(thread);
    log.seq += 1;
    log.lastAt = Date.now();
    this.logs.delete(thread); // most recently used last: the idle sweep stops at the first recent one
    this.logs.set(thread, log);
    log.events.push({ seq: log.seq, ...entry });
    if (log.events.length > this.window) log.events.splice(0, log.events.length - this.window);
    for (const wake of [...log.wake]) wake();
    this.dropIdle();
  }

  head(thread: string): Promise<number> {
    return Promise.resolve(this.logs.get(thread)?.seq ?? this.heads.get(thread) ?? 0);
  }

  async *read(thread: string, opts: ThreadLogReadOptions): AsyncGenerator<ThreadLogEvent> {
    const { signal } = opts;
    let cursor = opts.since ?? 0;
    while (!signal?.aborted) {
      const log = this.logOf(thread);
      const next = log.events.filter((e) => e.seq > cursor);
      for (const e of next) {
        cursor = e.seq;
        yield e;
        if (signal?.aborted) return;
      }
      if (next.length > 0) continue;
      await new Promise<void>((resolve) => {
        const done = () => {
          log.wake.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        log.wake.add(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }

  private logOf(thread: string): Log {
    let log = this.logs.get(thread);
    if (!log) {
      log = { seq: this.heads.get(thread) ?? 0, events: [], lastAt: Date.now(), wake: new Set() };
      this.logs.set(thread, log);
    }
    return log;
  }

  /** Drops the events of threads idle for `ttlMs` that nobody reads (their numbering is kept). */
  private dropIdle(): void {
    const before = Date.now() - this.ttlMs;
    for (const [thread, log] of this.logs) {
      if (log.lastAt >= before) break; // least recently appended first
      if (log.wake.size > 0) continue;
      this.heads.set(thread, log.seq);
      this.logs.delete(thread);
    }
  }
}
