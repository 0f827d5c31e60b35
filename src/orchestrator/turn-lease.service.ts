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

  /** Renews the lease until the returned function is called. */
  keep(run: RunEntity): () => void {
    const leaseMs = this.config.runLockMs;
    const timer = setInterval(() => void this.renew(run, leaseMs), Math.max(100, Math.floor(leaseMs / 4)));
    return () => clearInterval(timer);
  }

  release(run: RunEntity): Promise<void> {
    return this.sessions.releaseLease(run.sessionId, run.id);
  }

  private async renew(run: RunEntity, leaseMs: number): Promise<void> {
    try {
      if (!(await this.sessions.renewLease(run.sessionId, run.id, leaseMs))) {
        this.logger.warn({ msg: 'session lease lost while running', run_id: run.id });
      }
    } catch (err) {
      this.logger.warn({ msg: 'session lease not renewed', run_id: run.id, err: (err as Error).message });
    }
  }
}
