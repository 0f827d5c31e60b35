import { Injectable } from '@nestjs/common';

import { hasEnded, type RunEntity } from '../database/entities';
import { RunEventBus } from '../events/run-event-bus';
import { RunStore } from './store/run-store';

/** How often a waiter re-reads the stored run anyway: the safety net for an end the bus did not report. */
export const RECHECK_MS = 2000;

/**
 * The slow safety net of a wait woken by events (a busy session's next turn, a parked run): `ms` give or take a
 * quarter, so waiters parked together do not look again together.
 */
export function safetyNetMs(ms = RECHECK_MS): number {
  return Math.round(ms * (0.75 + Math.random() / 2));
}

/** `awaitEnd` gave up (its timeout, or the caller's signal) before the run ended; `run` is the row last read. */
export class RunEndNotSeen extends Error {
  constructor(
    readonly runId: string,
    readonly reason: 'timeout' | 'aborted',
    readonly run: RunEntity,
  ) {
    super(`run ${runId} had not ended ${reason === 'timeout' ? 'in time' : 'when the wait was aborted'} (status ${run.status})`);
  }
}

export interface AwaitEndOptions {
  /** stop waiting: rejects with RunEndNotSeen (`aborted`) */
  signal?: AbortSignal;
  /** stop waiting after this long: rejects with RunEndNotSeen (`timeout`) */
  timeoutMs?: number;
  /**
   * This process executes the run (the promise settles when that execution is over): its end is known here, so
   * the row is read once it settles, without following the bus; only a run that did not end with it (paused for
   * approval, handed back) is then followed.
   */
  here?: Promise<unknown>;
  /**
   * The caller follows the run's events itself (a stream): the promise settles when that subscription is over
   * (`end`, window expired, events lost), and awaitEnd opens no subscription of its own.
   */
  followed?: Promise<unknown>;
  /** how a missing run is reported (RunNotFoundException) */
  what?: 'job' | 'run';
}

/**
 * The one wait for a run's end, used by every waiter (sync repeats, `runs/wait`, `join`, job streams, the embed
 * facade). Driven by the run event bus — a run publishes `result` and then `end` once its final row is written,
 * whichever process executes it, and a run cancelled while queued gets its `end` from the cancel — with one slow
 * re-read of the stored row every RECHECK_MS as the safety net for ends the bus did not report (events lost,
 * window expired, another deployment). Resolves with the stored final row (see `hasEnded`).
 */
@Injectable()
export class RunEnds {
  /** the safety net's period (tests shorten it) */
  recheckMs = RECHECK_MS;

  /** one bus subscription per run followed by `whenEnded` in this process, however many wait for it */
  private readonly watches = new Map<string, { ended: Promise<void>; stop: AbortController; waiters: number }>();

  constructor(
    private readonly events: RunEventBus,
    private readonly records: RunStore,
  ) {}

  /**
   * Resolves when the bus reports the run's end (or finds its window gone, or loses its connection), or when
   * `signal` aborts: a wake-up, not a proof — the caller looks again at what it waits for (a session's lease, a
   * run's row) and keeps its own slow safety net. Used by a busy session's next turn (TurnLease) and parked runs
   * (the queues). Subscribed before this returns; one subscription per run in this process, shared.
   */
  whenEnded(runId: string, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.resolve();
    let watch = this.watches.get(runId);
    if (!watch) {
      const stop = new AbortController();
      const ended = this.busOver(runId, stop.signal).finally(() => {
        if (this.watches.get(runId) === watch) this.watches.delete(runId);
      });
      watch = { ended, stop, waiters: 0 };
      this.watches.set(runId, watch);
    }
    const w = watch;
    w.waiters += 1;
    return new Promise<void>((resolve) => {
      let left = false;
      const leave = () => {
        if (left) return;
        left = true;
        signal?.removeEventListener('abort', leave);
        w.waiters -= 1;
        if (w.waiters === 0) {
          w.stop.abort(); // nobody waits any more: the subscription goes
          if (this.watches.get(runId) === w) this.watches.delete(runId);
        }
        resolve();
      };
      signal?.addEventListener('abort', leave, { once: true });
      void w.ended.then(leave, leave);
    });
  }

  async awaitEnd(runId: string, opts: AwaitEndOptions = {}): Promise<RunEntity> {
    const stop = new AbortController();
    let timedOut = false;
    const onAbort = () => stop.abort();
    if (opts.signal?.aborted) stop.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const timer =
      opts.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            stop.abort();
          }, opts.timeoutMs);
    const read = () => this.records.get(runId, opts.what);
    const gaveUp = (run: RunEntity) => new RunEndNotSeen(runId, timedOut ? 'timeout' : 'aborted', run);
    try {
      if (opts.here) {
        await nap(Infinity, stop.signal, opts.here);
        const run = await read();
        if (hasEnded(run)) return run;
        if (stop.signal.aborted) throw gaveUp(run);
      }
      // subscribed before the first read: an end published while it is out wakes the loop below
      let fresh = false;
      let wake: (() => void) | undefined;
      const reported = () => {
        fresh = true;
        wake?.();
      };
      void (opts.followed ?? this.busOver(runId, stop.signal, opts.here)).then(reported, reported);
      for (;;) {
        fresh = false; // what the bus reported until now, this read sees
        const run = await read();
        if (hasEnded(run)) return run;
        if (stop.signal.aborted) throw gaveUp(run);
        if (fresh) continue; // the bus reported the end while the row was being read: read it again
        await nap(this.recheckMs, stop.signal, new Promise<void>((resolve) => (wake = resolve)));
        wake = undefined;
        if (stop.signal.aborted) throw gaveUp(run);
      }
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      stop.abort();
    }
  }

  /**
   * Follows the run's events until the subscription is over: `end`, a window that has expired (the run ended
   * long ago), a lost connection, or `signal`. The subscription starts before this returns its promise.
   */
  private async busOver(runId: string, signal: AbortSignal, here?: Promise<unknown>): Promise<void> {
    const events = this.events.subscribe(runId, { signal, here })[Symbol.asyncIterator]();
    let next = events.next(); // starts the subscription now, not at the first await
    try {
      while (!(await next).done) next = events.next();
    } catch {
      // a lost bus connection: the re-read of the row remains
    }
  }
}

/** Resolves after `ms`, when `signal` aborts, or when `early` settles, whichever comes first. */
function nap(ms: number, signal: AbortSignal, early: Promise<unknown>): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
    signal.addEventListener('abort', done, { once: true });
    early.then(done, done);
  });
}
