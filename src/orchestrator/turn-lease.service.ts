import { Injectable, Logger } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { RunSuperseded } from '../core/run-fence';
import { FINAL_STATUSES, type RunEntity } from '../database/entities';
import { RunEnds, safetyNetMs } from '../runs/run-ends.service';
import { RunStore } from '../runs/store/run-store';
import { SessionStore } from '../runs/store/session-store';
import { withDbRetry } from './db-retry';

/**
 * A turn waiting for its session is woken by the end of the turn ahead of it (the run event bus); it looks
 * again after about this long anyway: the slow safety net for an end the bus did not carry.
 */
export const SESSION_RECHECK_MS = 5000;
/** a run's own lease, left by an attempt that was cut off, is looked at again at most this long after */
const OWN_LEASE_MAX_MS = 1000;
/** a renewal asked for this close to the lease's end may land after it: not relied on */
const CONFIRM_MARGIN_MS = 100;
const CONFIRM_RETRY_MS = 100;

/** A turn's lease while it runs (TurnLease.keep). */
export interface KeptLease {
  /** stops renewing */
  stop(): void;
  /**
   * Before a side effect (a tool that acts on the world, a checkpoint): undefined when this attempt holds the
   * lease by this process's clock — a renewal held within half of RUN_LOCK_MS — else a renewal now (retried while
   * the lease may still run), resolved when it holds. Rejects with RunSuperseded (and calls `lost`) when another
   * attempt has the run; with the database's error when no renewal got through before the lease ran out by this
   * clock — its worker may be the one cut off, so the side effect is not started, and a queued run is handed
   * back (a write fenced by the attempt: it takes effect only if no other attempt has the run).
   */
  confirm(): Promise<void> | undefined;
}

/** The session is busy with an earlier turn; the run stays `queued`. */
export class SessionLeaseBusy extends Error {
  constructor(
    readonly sessionId: string,
    /** when to look again: soon when the lease still held is this run's own (a takeover after a crash) */
    readonly retryInMs?: number,
    /** the run whose end makes the session free for this one (the turn ahead of it): wake the parked run then */
    readonly wakeOn?: string,
  ) {
    super(`session ${sessionId} is busy with an earlier turn`);
  }
}

// defined beside the fence (core/run-fence.ts): a checkpoint statement refused by its attempt predicate throws it too
export { RunSuperseded };

/** What a turn that could not take its session waits for: a run's end (`runId`), at most `ms` (the safety net). */
interface Blocker {
  runId?: string;
  ms: number;
}

/**
 * A turn's hold on its session: taken before the graph starts (turns of a session run one at a time, in the
 * order accepted), renewed every quarter of RUN_LOCK_MS while the turn runs, so a crashed worker's lease lapses
 * as quickly as its job lock. A turn that finds the session busy waits for the end of the turn ahead of it on the
 * run event bus — not by polling — and looks again every SESSION_RECHECK_MS at most (the safety net).
 */
@Injectable()
export class TurnLease {
  private readonly logger = new Logger(TurnLease.name);

  constructor(
    private readonly sessions: SessionStore,
    private readonly runs: RunStore,
    private readonly config: AppConfig,
    private readonly ends: RunEnds,
  ) {}

  /**
   * `block`: wait until the lease is free (or `deadline`), woken by the end of the turn ahead; `defer`: throw
   * SessionLeaseBusy at once, naming that turn (`wakeOn`). False when the deadline passed, the signal aborted, or
   * the run ended or was cancelled meanwhile.
   */
  async take(run: RunEntity, deadline: number, signal: AbortSignal, mode: 'block' | 'defer'): Promise<boolean> {
    const retries = this.config.durability.dbWriteRetries;
    let lapsed = false;
    for (;;) {
      if (await withDbRetry('take lease', retries, () => this.sessions.tryLease(run.sessionId, run.id, this.config.runLockMs))) return true;
      // ended or cancelled meanwhile (e.g. by another executor of an idempotent repeat): its stored result answers
      const now = await this.runs.get(run.id);
      if (FINAL_STATUSES.includes(now.status) || now.cancelRequested) return false;
      const blocker = await this.blocker(run, lapsed);
      if (!blocker) {
        // no live lease and nobody ahead: it lapsed since the try (a crashed worker's, this run's own): try once
        // more now rather than wait for the safety net, which is meant for a session busy with an earlier turn
        lapsed = true;
        continue;
      }
      if (mode === 'defer') throw new SessionLeaseBusy(run.sessionId, blocker.ms, blocker.runId);
      if (Date.now() >= deadline || signal.aborted) return false;
      await this.until(blocker, Math.min(blocker.ms, deadline - Date.now()), signal);
    }
  }

  /**
   * What the turn waits for: the end of the unfinished turn accepted just before it (turns run in that order, so
   * its end is when this one may start), else the session's lease holder. Undefined when neither is there (the
   * lease lapsed since the try) and that was not already the case the last time (`lapsed`).
   */
  private async blocker(run: RunEntity, lapsed: boolean): Promise<Blocker | undefined> {
    const line = await this.sessions.inflight(run.tenantId, run.sessionId);
    const at = line.indexOf(run.id);
    const ahead = at > 0 ? line[at - 1] : at < 0 ? line.at(-1) : undefined;
    if (ahead) return { runId: ahead, ms: safetyNetMs(SESSION_RECHECK_MS) };
    const holder = await this.sessions.leaseHolder(run.sessionId, run.tenantId);
    if (!holder) return lapsed ? { ms: safetyNetMs(SESSION_RECHECK_MS) } : undefined;
    // this run's own lease, from an attempt that was cut off: it lapses soon, and no end will come for it
    if (holder.runId === run.id) return { ms: Math.min(holder.remainingMs + 50, OWN_LEASE_MAX_MS) };
    return { runId: holder.runId, ms: Math.min(safetyNetMs(SESSION_RECHECK_MS), holder.remainingMs + 50) };
  }

  /** Resolves when the blocker's end is reported, after `ms`, or when `signal` aborts. */
  private async until(blocker: Blocker, ms: number, signal: AbortSignal): Promise<void> {
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(onAbort, Math.max(0, ms));
    try {
      await (blocker.runId
        ? this.ends.whenEnded(blocker.runId, stop.signal)
        : new Promise<void>((r) => stop.signal.addEventListener('abort', () => r(), { once: true })));
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      stop.abort();
    }
  }

  /**
   * Renews the lease until `stop`. `lost`: called once when a renewal finds the lease no longer this attempt's
   * (another attempt took the run over): the caller stops the turn. `confirm`: see KeptLease.
   */
  keep(run: RunEntity, lost: () => void = () => undefined): KeptLease {
    const leaseMs = this.config.runLockMs;
    let kept = true;
    // when the last renewal that held was asked for (the lease was taken or renewed just before this call)
    let heldSince = Date.now();
    const renewNow = async () => {
      const asked = Date.now();
      const held = await this.renew(run, leaseMs);
      if (held === true) heldSince = Math.max(heldSince, asked);
      return held;
    };
    const stop = () => {
      kept = false;
      clearInterval(timer);
    };
    const lose = () => {
      if (!kept) return;
      stop();
      lost();
    };
    const timer = setInterval(
      async () => {
        if ((await renewNow()) === false) lose();
      },
      Math.max(100, Math.floor(leaseMs / 4)),
    );
    // one renewal at a time: what asks while it is out waits for it too, in the order asked (puts and writes)
    let confirming: Promise<void> | undefined;
    const confirmNow = async () => {
      // stalled, or the database was out of reach: renew now, and again while this attempt's lease may still run
      for (;;) {
        const held = await renewNow();
        if (held === true) return;
        if (held === false) {
          // another attempt has the run: this one ends here, recording nothing
          this.logger.warn({ msg: 'run superseded: a side effect is not started', run_id: run.id, attempt: run.attempts });
          lose();
          throw new RunSuperseded(run.id, run.attempts);
        }
        if (Date.now() + CONFIRM_RETRY_MS >= heldSince + leaseMs - CONFIRM_MARGIN_MS) {
          // the lease ran out by this clock with the database out of reach: the side effect is not started, and
          // the database's error goes up (a queued run is handed back: fenced by its attempt, as every write)
          this.logger.warn({ msg: 'run lease not confirmed: a side effect is not started', run_id: run.id, attempt: run.attempts });
          throw held;
        }
        await new Promise((r) => setTimeout(r, CONFIRM_RETRY_MS));
      }
    };
    const confirm = () => {
      if (!kept) return Promise.reject(new RunSuperseded(run.id, run.attempts));
      // the timer renews every quarter of the lease: a renewal that held within half of it leaves half a lease
      if (!confirming && Date.now() - heldSince < leaseMs / 2) return undefined;
      return (confirming ??= confirmNow().finally(() => (confirming = undefined)));
    };
    return { stop, confirm };
  }

  release(run: RunEntity): Promise<void> {
    return this.sessions.releaseLease(run.sessionId, run.id);
  }

  /** false: the lease is no longer this attempt's; an error: not renewed this time (the database out of reach). */
  private async renew(run: RunEntity, leaseMs: number): Promise<boolean | Error> {
    try {
      const held = await this.sessions.renewLease(run.sessionId, run.id, run.attempts, leaseMs);
      if (!held) this.logger.warn({ msg: 'session lease lost while running', run_id: run.id, attempt: run.attempts });
      return held;
    } catch (err) {
      this.logger.warn({ msg: 'session lease not renewed', run_id: run.id, err: (err as Error).message });
      return err instanceof Error ? err : new Error(String(err));
    }
  }
}
