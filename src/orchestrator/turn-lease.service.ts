import { Injectable, Logger } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { FINAL_STATUSES, type RunEntity } from '../database/entities';
import { RunStore } from '../runs/store/run-store';
import { SessionStore } from '../runs/store/session-store';
import { withDbRetry } from './db-retry';

const LEASE_POLL_MS = 50;
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
  ) {
    super(`session ${sessionId} is busy with an earlier turn`);
  }
}

/**
 * Another attempt of the run has started since this one did: its worker was cut off (or stalled) past its lease
 * and the run was taken over. This attempt records nothing more — no end, no pause, no hand-back, no `result`
 * event; the attempt that holds the run now does.
 */
export class RunSuperseded extends Error {
  constructor(
    readonly runId: string,
    readonly attempt: number,
  ) {
    super(`run ${runId}: attempt ${attempt} was superseded by a later attempt`);
  }
}

/**
 * A turn's hold on its session: taken before the graph starts (turns of a session run one at a time, in the
 * order accepted), renewed every quarter of RUN_LOCK_MS while the turn runs, so a crashed worker's lease lapses
 * as quickly as its job lock.
 */
@Injectable()
export class TurnLease {
  private readonly logger = new Logger(TurnLease.name);

  constructor(
    private readonly sessions: SessionStore,
    private readonly runs: RunStore,
    private readonly config: AppConfig,
  ) {}

  /**
   * `block`: wait until the lease is free (or `deadline`); `defer`: throw SessionLeaseBusy at once. False when
   * the deadline passed, the signal aborted, or the run ended or was cancelled meanwhile.
   */
  async take(run: RunEntity, deadline: number, signal: AbortSignal, mode: 'block' | 'defer'): Promise<boolean> {
    const retries = this.config.durability.dbWriteRetries;
    let lapsed = false;
    for (;;) {
      if (await withDbRetry('take lease', retries, () => this.sessions.tryLease(run.sessionId, run.id, this.config.runLockMs))) return true;
      // ended or cancelled meanwhile (e.g. by another executor of an idempotent repeat): its stored result answers
      const now = await this.runs.get(run.id);
      if (FINAL_STATUSES.includes(now.status) || now.cancelRequested) return false;
      if (mode === 'defer') {
        const holder = await this.sessions.leaseHolder(run.sessionId, run.tenantId);
        // no live lease any more: it lapsed since the try (a crashed worker's, this run's own): try once more now
        // rather than park for the default wait, which is meant for a session busy with an earlier turn
        if (!holder && !lapsed) {
          lapsed = true;
          continue;
        }
        throw new SessionLeaseBusy(run.sessionId, holder?.runId === run.id ? Math.min(holder.remainingMs + 50, 1000) : undefined);
      }
      if (Date.now() >= deadline || signal.aborted) return false;
      await new Promise((r) => setTimeout(r, LEASE_POLL_MS));
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
