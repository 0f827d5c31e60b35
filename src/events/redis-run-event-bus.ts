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
}

/**
 * Runs' events in Redis streams, one per run (`run-events:{prefix}:{runId}`), so a run executed by one process
 * is followed from any other. `publish` only queues, never awaited by the run: one pipeline at a time on the
 * publishing connection carries every run's queued events, in order per run (what is published while a
 * pipeline is out goes in the next one, so under load the batches grow instead of the round trips). A run's
 * stream gets its idle expiry when this process first writes it and again when that is old, not with every
 * batch (each command and write costs the worker and Redis CPU). `end` adds the `end` entry, sets the stream's
 * expiry (RUN_EVENTS_TTL_S) and a tombstone `…:{runId}:ended` that outlives it (24 × RUN_EVENTS_TTL_S), so a
 * subscriber arriving after the window expired finishes at once. Subscribers read with `XREAD BLOCK` on a
 * connection of their own (one per subscriber), never on the publisher's.
 */
export class RedisRunEventBus extends RunEventBus {
  private readonly logger = new Logger(RedisRunEventBus.name);
  private readonly redis: IORedis;
  /** runs with events not yet sent (a run's box stays while its last batch is out, so `end` stays last) */
  private readonly outboxes = new Map<string, Outbox>();
  private flushing?: Promise<void>;
  /** when this process last set a run's idle expiry (dropped at end, and once stale) */
  private readonly expirySetAt = new Map<string, number>();
  private expiryPrunedAt = Date.now();
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
    while (this.flushing) await this.flushing;
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
    this.startFlush();
  }

  private startFlush(): void {
    if (this.flushing) return;
    // what else this event-loop turn publishes (a network read's worth of streamed tokens) joins the pipeline
    const flushing: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.flush())
      .finally(() => {
        if (this.flushing !== flushing) return;
        this.flushing = undefined;
        // published between the last batch and here
        if ([...this.outboxes.values()].some((box) => box.items.length > 0)) this.startFlush();
      });
    this.flushing = flushing;
  }

  /** Sends the queued events of every run, one pipeline at a time, until none are left. */
  private async flush(): Promise<void> {
    try {
      for (;;) {
        const batch = [...this.outboxes].filter(([, box]) => box.items.length > 0);
        if (batch.length === 0) return;
        const p = this.redis.pipeline();
        const expiring: string[] = [];
        for (const [runId, box] of batch) {
          const key = this.key(runId);
          for (const [event, payload] of box.items.splice(0)) {
            p.xadd(key, 'MAXLEN', '~', String(this.opts.window), '*', 'event', event, 'data', payload);
          }
          if (box.ended) {
            p.expire(key, this.opts.ttlS);
            p.set(`${key}:ended`, '1', 'EX', this.opts.ttlS * 24);
          } else if (this.idleExpiryDue(runId)) {
            p.expire(key, this.opts.idleTtlS);
            expiring.push(runId);
          }
        }
        try {
          // the first event after a quiet spell goes out at the end of its event-loop turn; what comes while this batch is out waits for it
          const results = (await p.exec()) ?? [];
          const failed = results.find(([err]) => err);
          if (failed) this.logger.warn({ msg: 'run events not written', runs: batch.length, err: (failed[0] as Error).message });
        } catch (err) {
          for (const runId of expiring) this.expirySetAt.delete(runId); // set it again with the next batch
          this.logger.warn({ msg: 'run events not written', runs: batch.length, err: (err as Error).message });
        }
        for (const [runId, box] of batch) {
          if (box.ended) this.expirySetAt.delete(runId);
          if (box.items.length === 0 && this.outboxes.get(runId) === box) this.outboxes.delete(runId);
        }
      }
    } catch (err) {
      this.logger.warn({ msg: 'run events not written', err: (err as Error).message });
    }
  }

  /**
   * Whether a run's stream needs its idle expiry now: not yet set by this process, or set over half the idle
   * time ago (a live run's stream must not expire under it). Marks it set.
   */
  private idleExpiryDue(runId: string): boolean {
    const now = Date.now();
    const refreshMs = (this.opts.idleTtlS * 1000) / 2;
    if (now - this.expiryPrunedAt > refreshMs) {
      // runs that stopped here without ending (handed back, taken over): stale entries would be refreshed anyway
      for (const [id, at] of this.expirySetAt) if (now - at > refreshMs) this.expirySetAt.delete(id);
      this.expiryPrunedAt = now;
    }
    const at = this.expirySetAt.get(runId);
    if (at !== undefined && now - at <= refreshMs) return false;
    this.expirySetAt.set(runId, now);
    return true;
  }
}

function fieldOf(fields: string[], name: string): string | undefined {
  for (let i = 0; i < fields.length - 1; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}
