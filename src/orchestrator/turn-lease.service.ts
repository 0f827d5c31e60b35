import { Injectable, Logger } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { FINAL_STATUSES, type RunEntity } from '../database/entities';
import { RunStore } from '../runs/store/run-store';
import { SessionStore } from '../runs/store/session-store';
import { withDbRetry } from './db-retry';

const LEASE_POLL_MS = 50;

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
   * Renews the lease until the returned function is called. `lost`: called once when a renewal finds the lease
   * no longer this attempt's (another attempt took the run over): the caller stops the turn.
   */
  keep(run: RunEntity, lost: () => void = () => undefined): () => void {
    const leaseMs = this.config.runLockMs;
    let kept = true;
    const stop = () => {
      kept = false;
      clearInterval(timer);
    };
    const timer = setInterval(
      async () => {
        if ((await this.renew(run, leaseMs)) === false && kept) {
          stop();
          lost();
        }
      },
      Math.max(100, Math.floor(leaseMs / 4)),
    );
    return stop;
  }

  release(run: RunEntity): Promise<void> {
    return this.sessions.releaseLease(run.sessionId, run.id);
  }

  /** false: the lease is no longer this attempt's; undefined: not renewed this time (database unreachable). */
  private async renew(run: RunEntity, leaseMs: number): Promise<boolean | undefined> {
    try {
      const held = await this.sessions.renewLease(run.sessionId, run.id, run.attempts, leaseMs);
      if (!held) this.logger.warn({ msg: 'session lease lost while running', run_id: run.id, attempt: run.attempts });
      return held;
    } catch (err) {
      this.logger.warn({ msg: 'session lease not renewed', run_id: run.id, err: (err as Error).message });
      return undefined;
    }
  }
}
