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
  /** LINGER_MS unless set */
  lingerMs?: number;
}

/** Events a follower elsewhere may get a little later: a run's start and its steps (see LINGER_MS). */
const MAY_LINGER = new Set(['metadata', 'progress']);
/**
 * How long a run's `metadata` and `progress` events wait for what the run publishes next, when no one follows the
 * run from this process: a turn's start, its steps and its result then reach Redis in one pipeline instead of one
 * round trip each. Anything else (tokens, stream chunks, interrupts, the result, `end`) and any event of a run
 * followed here goes out at the end of its event-loop turn, and takes what was waiting with it, in order.
 */
const LINGER_MS = 20;

interface Outbox {
  items: Array<[event: string, payload: string, data: unknown]>;
  ended: boolean;
}

/**
 * Runs' events in Redis streams, one per run (`run-events:{prefix}:{runId}`), so a run executed by one process
 * is followed from any other. `publish` only queues, never awaited by the run: one pipeline at a time on the
 * publishing connection carries every run's queued events, in order per run (what is published while a
 * pipeline is out goes in the next one, so under load the batches grow instead of the round trips; a run no one
 * follows here sends its start and steps with what comes next, LINGER_MS at most). A run's
 * stream gets its idle expiry when this process first writes it and again when that is old, not with every
 * batch (each command and write costs the worker and Redis CPU). `end` adds the `end` entry, sets the stream's
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
  /** runs with events not yet sent (a run's box stays while its last batch is out, so `end` stays last) */
  private readonly outboxes = new Map<string, Outbox>();
  private flushing?: Promise<void>;
  /** while the next pipeline lingers (LINGER_MS): sends it at the end of this event-loop turn instead */
  private hurry?: () => void;
  /** subscribers in this process, per run: their runs' events never linger */
  private readonly followers = new Map<string, number>();
  /** when this process last set a run's idle expiry (dropped at end, and once stale) */
  private readonly expirySetAt = new Map<string, number>();
  private expiryPrunedAt = Date.now();
  private readonly readers = new Set<IORedis>();
  /** subscribers of runs executed here, fed by `flush` */
  private readonly local = new Map<string, Set<(e: RunEvent) => void>>();
  /** a pipeline is out: only then may a backlog (Redis unreachable) be trimmed */
  private sending = false;
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
    if (opts.signal?.aborted || this.closed) return;
    this.followers.set(runId, (this.followers.get(runId) ?? 0) + 1);
    if (this.outboxes.get(runId)?.items.length) this.hurry?.(); // what lingers goes out now
    try {
      yield* this.follow(runId, opts);
    } finally {
      const n = (this.followers.get(runId) ?? 1) - 1;
      if (n > 0) this.followers.set(runId, n);
      else this.followers.delete(runId);
    }
  }

  private async *follow(runId: string, opts: SubscribeOptions): AsyncGenerator<RunEvent> {
    const { signal } = opts;
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
        const entries = await readAfter(reader, key, cursor, block ? (this.opts.blockMs ?? 5000) : undefined);
        for (const e of entries) {
          cursor = e.id;
          if (e.event === END_EVENT) return;
          yield e;
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
   * A run executed by this process: its window after `cursor` as written so far, then its events from `flush`.
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
        while (this.outboxes.has(runId) && this.flushing) await this.flushing;
        over = true;
        wake?.();
      });
    try {
      for (;;) {
        const entries = await readAfter(this.redis, this.key(runId), cursor);
        for (const e of entries) {
          cursor = e.id;
          if (e.event === END_EVENT) return null;
          yield e;
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
    while (this.flushing) await this.flushing;
  }

  /** Shutdown: publish what is queued (bounded wait), then close every connection. */
  async onModuleDestroy(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    this.hurry?.();
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
    // (not while a pipeline is being gathered: a burst goes out whole, as a live reader would see it)
    if (this.sending && box.items.length > this.opts.window + 1) box.items.splice(0, box.items.length - this.opts.window - 1);
    this.startFlush(!MAY_LINGER.has(event) || this.followers.has(runId));
  }

  private startFlush(urgent: boolean): void {
    if (this.flushing) {
      if (urgent) this.hurry?.();
      return;
    }
    const flushing: Promise<void> = this.gathering(urgent)
      .then(() => this.flush())
      .finally(() => {
        if (this.flushing !== flushing) return;
        this.flushing = undefined;
        // published between the last batch and here
        const waiting = [...this.outboxes].filter(([, box]) => box.items.length > 0);
        if (waiting.length > 0) this.startFlush(waiting.some(([runId, box]) => this.isUrgent(runId, box)));
      });
    this.flushing = flushing;
  }

  /**
   * Until the next pipeline is sent: the end of this event-loop turn (what else it publishes — a graph step's
   * updates, values, progress; a network read's worth of streamed tokens — joins the same pipeline), or LINGER_MS
   * when only a run's start and steps that no one here follows are waiting (cut short by anything urgent).
   */
  private gathering(urgent: boolean): Promise<void> {
    return new Promise<void>((resolve) => {
      if (urgent) return void setImmediate(resolve);
      const timer = setTimeout(() => {
        this.hurry = undefined;
        resolve();
      }, this.opts.lingerMs ?? LINGER_MS);
      this.hurry = () => {
        this.hurry = undefined;
        clearTimeout(timer);
        setImmediate(resolve);
      };
    });
  }

  private isUrgent(runId: string, box: Outbox): boolean {
    return this.followers.has(runId) || box.items.some(([event]) => !MAY_LINGER.has(event));
  }

  /** Sends the queued events of every run, one pipeline at a time, until none are left. */
  private async flush(): Promise<void> {
    // at most half a window of a run per pipeline: Redis answers a blocked reader after the whole pipeline, and
    // a burst longer than the window would be trimmed (`MAXLEN ~`) before a live reader saw its start
    const most = Math.max(1, Math.floor(this.opts.window / 2));
    try {
      for (;;) {
        const batch = [...this.outboxes].filter(([, box]) => box.items.length > 0);
        if (batch.length === 0) return;
        const p = this.redis.pipeline();
        let commands = 0;
        const sent: Array<{ runId: string; event: string; data: unknown; json: string; at: number }> = [];
        const expiring: string[] = [];
        const ending: string[] = [];
        for (const [runId, box] of batch) {
          const key = this.key(runId);
          const items = box.items.splice(0, most);
          for (const [event, payload, data] of items) {
            p.xadd(key, 'MAXLEN', '~', String(this.opts.window), '*', 'event', event, 'data', payload);
            sent.push({ runId, event, data, json: payload, at: commands++ });
          }
          if (items[items.length - 1][0] === END_EVENT) {
            p.expire(key, this.opts.ttlS);
            p.set(`${key}:ended`, '1', 'EX', this.opts.ttlS * 24);
            commands += 2;
            ending.push(runId);
          } else if (this.idleExpiryDue(runId)) {
            p.expire(key, this.opts.idleTtlS);
            commands += 1;
            expiring.push(runId);
          }
        }
        let results: Array<[Error | null, unknown]> = [];
        this.sending = true;
        try {
          // the first event after a quiet spell goes out at the end of its event-loop turn; what comes while this batch is out waits for it
          results = (await p.exec()) ?? [];
          const failed = results.find(([err]) => err);
          if (failed) this.logger.warn({ msg: 'run events not written', runs: batch.length, err: (failed[0] as Error).message });
        } catch (err) {
          for (const runId of expiring) this.expirySetAt.delete(runId); // set it again with the next batch
          this.logger.warn({ msg: 'run events not written', runs: batch.length, err: (err as Error).message });
        } finally {
          this.sending = false;
        }
        // subscribers here get the data as published (fresh objects the run does not change afterwards: toWire copies)
        for (const { runId, event, data, json, at } of sent) {
          const here = this.local.get(runId);
          const [err, id] = results[at] ?? [];
          if (here && !err && typeof id === 'string') for (const l of [...here]) l({ id, event, data, json });
        }
        for (const runId of ending) this.expirySetAt.delete(runId);
        for (const [runId, box] of batch) if (box.items.length === 0 && this.outboxes.get(runId) === box) this.outboxes.delete(runId);
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

/** One XREAD of a run's stream after `cursor` (at most 500 entries; `blockMs`: wait that long for one): its events, `end` included. */
async function readAfter(conn: IORedis, key: string, cursor: string, blockMs?: number): Promise<RunEvent[]> {
  const wait = blockMs === undefined ? [] : ['BLOCK', String(blockMs)];
  const res = (await conn.xread('COUNT', '500', ...(wait as []), 'STREAMS', key, cursor)) as Array<
    [string, Array<[string, string[]]>]
  > | null;
  return (res?.[0]?.[1] ?? []).map(([id, fields]) => {
    const json = fieldOf(fields, 'data') ?? 'null';
    return { id, event: fieldOf(fields, 'event') ?? 'unknown', data: JSON.parse(json) as unknown, json };
  });
}

function fieldOf(fields: string[], name: string): string | undefined {
  for (let i = 0; i < fields.length - 1; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}

/** Stream id `a` comes after `b` (`ms-seq`). */
function isAfter(a: string, b: string): boolean {
  const [am, as] = a.split('-').map(Number);
  const [bm, bs] = b.split('-').map(Number);
  return am > bm || (am === bm && as > bs);
}
