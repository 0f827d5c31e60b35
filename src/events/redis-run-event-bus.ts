import { Logger } from '@nestjs/common';
import IORedis, { type RedisOptions } from 'ioredis';

import { END_EVENT, type RunEvent, RunEventBus } from './run-event-bus';

export interface RedisRunEventBusOptions {
  /** QUEUE_PREFIX: parallel deployments (and test files) on one Redis never see each other's runs */
  prefix: string;
  /** RUN_EVENTS_WINDOW: a stream keeps about this many events (`XADD … MAXLEN ~`) */
  window: number;
  /** RUN_EVENTS_TTL_S: the stream expires this long after the run ended */
  ttlS: number;
  /** a run that never ends (its process died) keeps its stream at most this long after its last event */
  idleTtlS: number;
  /** how long one blocking read waits before a subscriber checks whether the run ended */
  blockMs?: number;
}

interface Outbox {
  items: Array<[event: string, payload: string]>;
  ended: boolean;
  draining?: Promise<void>;
}

/** Runs whose idle expiry refreshes are remembered; past this, those not refreshed within the idle TTL are forgotten. */
const EXPIRIES_REMEMBERED = 10_000;

/**
 * Runs' events in Redis streams, one per run (`run-events:{prefix}:{runId}`), so a run executed by one process
 * is followed from any other. `publish` only queues: each run's queue is drained in order by one pipeline at a
 * time on the publishing connection, never awaited by the run; the first pipeline waits for the end of the
 * event-loop turn, so a burst (a network read's worth of streamed tokens) is one round trip. While the run goes
 * on, the stream's idle expiry is set with its first entry and refreshed only once half of it has passed (not
 * with every batch). `end` adds the `end` entry, sets the stream's
 * expiry (RUN_EVENTS_TTL_S) and a tombstone `…:{runId}:ended` that outlives it (24 × RUN_EVENTS_TTL_S), so a
 * subscriber arriving after the window expired finishes at once. Subscribers read with `XREAD BLOCK` on a
 * connection of their own (one per subscriber), never on the publisher's.
 */
export class RedisRunEventBus extends RunEventBus {
  private readonly logger = new Logger(RedisRunEventBus.name);
  private readonly redis: IORedis;
  private readonly outboxes = new Map<string, Outbox>();
  /** run id → when (ms) its stream's idle expiry was last set, by this process */
  private readonly expirySetAt = new Map<string, number>();
  private readonly readers = new Set<IORedis>();
  private closed = false;

  constructor(
    connection: RedisOptions,
    private readonly opts: RedisRunEventBusOptions,
  ) {
    super();
    this.redis = new IORedis(connection);
    this.redis.on('error', (err: Error) => this.logger.warn({ msg: 'run events: redis error', err: err.message }));
  }

  key(runId: string): string {
    return `run-events:${this.opts.prefix}:${runId}`;
  }

  publish(runId: string, event: string, data: unknown): void {
    try {
      this.enqueue(runId, event, JSON.stringify(data ?? null), false);
    } catch (err) {
      this.logger.warn({ msg: 'run event not published', run_id: runId, event, err: (err as Error).message });
    }
  }

  end(runId: string): void {
    this.enqueue(runId, END_EVENT, 'null', true);
  }

  async *subscribe(runId: string, opts: { lastEventId?: string; signal?: AbortSignal } = {}): AsyncGenerator<RunEvent> {
    const { signal } = opts;
    if (signal?.aborted || this.closed) return;
    const key = this.key(runId);
    let cursor = /^\d+-\d+$/.test(opts.lastEventId ?? '') ? opts.lastEventId! : '0-0';
    const reader = this.redis.duplicate();
    reader.on('error', () => undefined); // a lost reader ends its subscription below
    this.readers.add(reader);
    const abort = () => reader.disconnect();
    signal?.addEventListener('abort', abort, { once: true });
    try {
      let block = false;
      let ended = false;
      for (;;) {
        const wait = block ? ['BLOCK', String(this.opts.blockMs ?? 5000)] : [];
        const res = (await reader.xread('COUNT', '500', ...(wait as []), 'STREAMS', key, cursor)) as Array<
          [string, Array<[string, string[]]>]
        > | null;
        const entries = res?.[0]?.[1] ?? [];
        for (const [id, fields] of entries) {
          cursor = id;
          const event = fieldOf(fields, 'event') ?? 'unknown';
          if (event === END_EVENT) return;
          yield { id, event, data: JSON.parse(fieldOf(fields, 'data') ?? 'null') as unknown };
          if (signal?.aborted) return;
        }
        if (entries.length > 0) continue;
        if (ended) return; // ended, and nothing after the cursor (window expired, or the cursor was at its end)
        // the tombstone is written after the last entry: once seen, one more read gets whatever is left
        ended = (await reader.exists(`${key}:ended`)) === 1;
        block = !ended;
      }
    } catch (err) {
      if (signal?.aborted || this.closed) return;
      throw err;
    } finally {
      signal?.removeEventListener('abort', abort);
      this.readers.delete(reader);
      reader.disconnect();
    }
  }

  /** Resolves when everything published so far has reached Redis (or failed and was logged). */
  async flushed(): Promise<void> {
    while (this.outboxes.size > 0) {
      const pending = [...this.outboxes.values()].map((o) => o.draining).filter(Boolean);
      if (pending.length === 0) return;
      await Promise.all(pending);
    }
  }

  /** Shutdown: publish what is queued (bounded wait), then close every connection. */
  async onModuleDestroy(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.flushed(), new Promise((r) => (timer = setTimeout(r, 2000)))]);
    clearTimeout(timer);
    this.closed = true;
    for (const r of this.readers) r.disconnect();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private enqueue(runId: string, event: string, payload: string, end: boolean): void {
    let box = this.outboxes.get(runId);
    if (!box) {
      box = { items: [], ended: false };
      this.outboxes.set(runId, box);
    }
    if (box.ended) return;
    box.items.push([event, payload]);
    if (end) box.ended = true;
    // Redis unreachable for long: keep the newest events (the window would trim the oldest anyway), and `end`
    if (box.items.length > this.opts.window + 1) box.items.splice(0, box.items.length - this.opts.window - 1);
    // what else this event-loop turn publishes goes into the same pipeline
    box.draining ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.drain(runId, box));
  }

  /** Sends the run's queued events in order, one pipeline at a time. */
  private async drain(runId: string, box: Outbox): Promise<void> {
    const key = this.key(runId);
    const window = String(this.opts.window);
    try {
      while (box.items.length > 0) {
        const batch = box.items.splice(0);
        const p = this.redis.pipeline();
        for (const [event, payload] of batch) p.xadd(key, 'MAXLEN', '~', window, '*', 'event', event, 'data', payload);
        const ending = batch[batch.length - 1][0] === END_EVENT; // `end` is always the last item queued
        if (ending) {
          p.expire(key, this.opts.ttlS);
          p.set(`${key}:ended`, '1', 'EX', this.opts.ttlS * 24);
          this.expirySetAt.delete(runId);
        } else if (this.idleExpiryDue(runId)) p.expire(key, this.opts.idleTtlS);
        const results = (await p.exec()) ?? [];
        const failed = results.find(([err]) => err);
        if (failed) {
          this.expirySetAt.delete(runId); // the expiry may not have been set: the next batch sets it
          this.logger.warn({ msg: 'run events not written', run_id: runId, err: (failed[0] as Error).message });
        }
      }
    } catch (err) {
      this.expirySetAt.delete(runId);
      this.logger.warn({ msg: 'run events not written', run_id: runId, err: (err as Error).message });
    } finally {
      box.draining = undefined;
      if (box.items.length > 0) box.draining = this.drain(runId, box);
      else if (this.outboxes.get(runId) === box) this.outboxes.delete(runId);
    }
  }

  /**
   * Whether this batch must (re)set the stream's idle expiry: on the run's first batch here, then once half of
   * the idle TTL has passed, so a stream always has at least half of it left after its last event — and a run
   * whose process died still loses its stream within the idle TTL.
   */
  private idleExpiryDue(runId: string): boolean {
    const now = Date.now();
    const setAt = this.expirySetAt.get(runId);
    if (setAt !== undefined && now - setAt < (this.opts.idleTtlS * 1000) / 2) return false;
    this.expirySetAt.delete(runId); // re-inserted last: the map stays in order of refresh
    this.expirySetAt.set(runId, now);
    // runs that ended in another process (taken over) are never `end`ed here: forget the stale ones
    if (this.expirySetAt.size > EXPIRIES_REMEMBERED) {
      for (const [id, at] of this.expirySetAt) {
        if (now - at < this.opts.idleTtlS * 1000) break;
        this.expirySetAt.delete(id);
      }
    }
    return true;
  }
}

function fieldOf(fields: string[], name: string): string | undefined {
  for (let i = 0; i < fields.length - 1; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}
