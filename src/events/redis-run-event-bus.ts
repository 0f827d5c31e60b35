import { Logger } from '@nestjs/common';
import IORedis, { type RedisOptions } from 'ioredis';

import { END_EVENT, type RunEvent, RunEventBus, type SubscribeOptions } from './run-event-bus';

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
  items: Array<[event: string, payload: string, data: unknown]>;
  ended: boolean;
  draining?: Promise<void>;
  /** a pipeline of this run's events is on its way to Redis */
  sending?: boolean;
}

/**
 * Runs' events in Redis streams, one per run (`run-events:{prefix}:{runId}`), so a run executed by one process
 * is followed from any other. `publish` only queues: each run's queue is drained in order by one pipeline at a
 * time on the publishing connection, never awaited by the run. `end` adds the `end` entry, sets the stream's
 * expiry (RUN_EVENTS_TTL_S) and a tombstone `…:{runId}:ended` that outlives it (24 × RUN_EVENTS_TTL_S), so a
 * subscriber arriving after the window expired finishes at once. Subscribers read with `XREAD BLOCK` on a
 * connection of their own (one per subscriber), never on the publisher's.
 *
 * A subscriber in the process that executes the run (`here`) reads what was written before it subscribed once,
 * then gets each event from the publishing pipeline as soon as Redis has taken it (with the id Redis gave it):
 * no connection of its own, no reading back, no parsing. Should the execution end without `end` (handed back
 * to the queue), it goes on reading Redis from where it is.
 */
export class RedisRunEventBus extends RunEventBus {
  private readonly logger = new Logger(RedisRunEventBus.name);
  private readonly redis: IORedis;
  private readonly outboxes = new Map<string, Outbox>();
  private readonly readers = new Set<IORedis>();
  /** subscribers of runs executed here, fed by `drain` */
  private readonly local = new Map<string, Set<(e: RunEvent) => void>>();
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
      this.enqueue(runId, event, JSON.stringify(data ?? null), data ?? null, false);
    } catch (err) {
      this.logger.warn({ msg: 'run event not published', run_id: runId, event, err: (err as Error).message });
    }
  }

  end(runId: string): void {
    this.enqueue(runId, END_EVENT, 'null', null, true);
  }

  async *subscribe(runId: string, opts: SubscribeOptions = {}): AsyncGenerator<RunEvent> {
    const { signal } = opts;
    if (signal?.aborted || this.closed) return;
    const key = this.key(runId);
    let cursor = /^\d+-\d+$/.test(opts.lastEventId ?? '') ? opts.lastEventId! : '0-0';
    if (opts.here) {
      const rest = yield* this.followHere(runId, cursor, opts.here, signal);
      if (rest === null || signal?.aborted || this.closed) return;
      cursor = rest;
    }
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

  /**
   * A run executed by this process: its window after `cursor` as written so far, then its events from `drain`.
   * Null once `end` has come (or the subscriber left); the cursor to read Redis from when the execution ended
   * without `end`.
   */
  private async *followHere(
    runId: string,
    from: string,
    here: Promise<unknown>,
    signal?: AbortSignal,
  ): AsyncGenerator<RunEvent, string | null> {
    let cursor = from;
    const pending: RunEvent[] = [];
    let wake: (() => void) | undefined;
    let over = false;
    const listener = (e: RunEvent) => {
      pending.push(e);
      wake?.();
    };
    const listeners = this.local.get(runId) ?? new Set();
    this.local.set(runId, listeners);
    listeners.add(listener); // before the read below: what it misses comes here (and what both see, once)
    const onAbort = () => wake?.();
    signal?.addEventListener('abort', onAbort, { once: true });
    // the execution is over: once what it published has been written, nothing more comes this way
    void here
      .catch(() => undefined)
      .then(async () => {
        for (let box = this.outboxes.get(runId); box?.draining; box = this.outboxes.get(runId)) await box.draining;
        over = true;
        wake?.();
      });
    try {
      for (;;) {
        const res = (await this.redis.xread('COUNT', '500', 'STREAMS', this.key(runId), cursor)) as Array<
          [string, Array<[string, string[]]>]
        > | null;
        const entries = res?.[0]?.[1] ?? [];
        for (const [id, fields] of entries) {
          cursor = id;
          const event = fieldOf(fields, 'event') ?? 'unknown';
          if (event === END_EVENT) return null;
          yield { id, event, data: JSON.parse(fieldOf(fields, 'data') ?? 'null') as unknown };
          if (signal?.aborted) return null;
        }
        if (entries.length < 500) break;
      }
      for (;;) {
        for (let e = pending.shift(); e; e = pending.shift()) {
          if (!isAfter(e.id, cursor)) continue;
          cursor = e.id;
          if (e.event === END_EVENT) return null;
          yield e;
          if (signal?.aborted) return null;
        }
        if (signal?.aborted || this.closed) return null;
        if (over) return cursor;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      listeners.delete(listener);
      if (listeners.size === 0 && this.local.get(runId) === listeners) this.local.delete(runId);
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

  private enqueue(runId: string, event: string, payload: string, data: unknown, end: boolean): void {
    let box = this.outboxes.get(runId);
    if (!box) {
      box = { items: [], ended: false };
      this.outboxes.set(runId, box);
    }
    if (box.ended) return;
    box.items.push([event, payload, data]);
    if (end) box.ended = true;
    // Redis unreachable for long: keep the newest events (the window would trim the oldest anyway), and `end`
    // (not while the first pipeline is being gathered: a burst goes out whole, as a live reader would see it)
    if (box.sending && box.items.length > this.opts.window + 1) box.items.splice(0, box.items.length - this.opts.window - 1);
    box.draining ??= this.drain(runId, box);
  }

  /**
   * Sends the run's queued events in order, one pipeline at a time. It starts on the next turn of the event loop:
   * what a graph step publishes at once (its `updates`, `values`, `progress`…) goes in one round trip — on a
   * busy machine every write to Redis costs the process a wake-up of the server, which is most of a run's Redis
   * cost.
   */
  private async drain(runId: string, box: Outbox): Promise<void> {
    const key = this.key(runId);
    try {
      await new Promise((resolve) => setImmediate(resolve));
      while (box.items.length > 0) {
        // at most half a window per pipeline: Redis answers a blocked reader after the whole pipeline, and a
        // burst longer than the window would be trimmed (`MAXLEN ~`) before a live reader saw its start
        const batch = box.items.splice(0, Math.max(1, Math.floor(this.opts.window / 2)));
        const p = this.redis.pipeline();
        for (const [event, payload] of batch) {
          p.xadd(key, 'MAXLEN', '~', String(this.opts.window), '*', 'event', event, 'data', payload);
        }
        const ending = batch.some(([event]) => event === END_EVENT);
        p.expire(key, ending ? this.opts.ttlS : this.opts.idleTtlS);
        if (ending) p.set(`${key}:ended`, '1', 'EX', this.opts.ttlS * 24);
        box.sending = true;
        const results = (await p.exec().finally(() => (box.sending = false))) ?? [];
        const failed = results.find(([err]) => err);
        if (failed) this.logger.warn({ msg: 'run events not written', run_id: runId, err: (failed[0] as Error).message });
        // subscribers here get the data as published (fresh objects the run does not change afterwards: toWire copies)
        const here = this.local.get(runId);
        if (here) {
          batch.forEach(([event, , data], i) => {
            const [err, id] = results[i] ?? [];
            if (!err && typeof id === 'string') for (const l of [...here]) l({ id, event, data });
          });
        }
      }
    } catch (err) {
      this.logger.warn({ msg: 'run events not written', run_id: runId, err: (err as Error).message });
    } finally {
      box.draining = undefined;
      if (box.items.length > 0) box.draining = this.drain(runId, box);
      else if (this.outboxes.get(runId) === box) this.outboxes.delete(runId);
    }
  }
}

/** Stream id `a` comes after `b` (`ms-seq`). */
function isAfter(a: string, b: string): boolean {
  const [am, as] = a.split('-').map(Number);
  const [bm, bs] = b.split('-').map(Number);
  return am > bm || (am === bm && as > bs);
}

function fieldOf(fields: string[], name: string): string | undefined {
  for (let i = 0; i < fields.length - 1; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}
