import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import type { ToolLedger } from '../../core/tool-ledger';
import { ORCHESTRATOR_DATA_SOURCE } from '../../database/data-source-name';
import { rowsOf } from '../../database/query-rows';
import type { AttemptCallRecord, RunUsage } from './persistent-usage';
import { PgToolLedger } from './tool-ledger.repository';

export interface UsageTotals {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

export interface ReconcileCandidate {
  id: string;
  status: 'queued' | 'running';
  attempts: number;
}

/**
 * The durability side of runs and sessions, in raw SQL: the session's turn lease (short, renewed by the
 * worker running the turn, so a crashed worker's lease lapses within RUN_LOCK_MS), hand-back at shutdown,
 * usage written as it accrues, idempotency keys, and the reconciler's view of unfinished runs.
 */
@Injectable()
export class DurableRuns {
  constructor(@InjectDataSource(ORCHESTRATOR_DATA_SOURCE) private readonly db: DataSource) {}

  /** `attempt` 1 reads nothing back: no earlier attempt can have recorded a call (see PgToolLedger). */
  toolLedger(runId: string, attempt: number): ToolLedger {
    return new PgToolLedger(this.db, runId, attempt <= 1);
  }

  /**
   * Take the session's lease for this run if nobody holds a live one and no earlier-accepted run of the
   * session is unfinished (turns run in acceptance order). One statement, no waiting.
   */
  async tryLease(sessionId: string, runId: string, leaseMs: number): Promise<boolean> {
    const rows = rowsOf(
      await this.db.query(
        `UPDATE sessions s SET active_run_id = $2, lease_expires_at = now() + ($3 || ' milliseconds')::interval, updated_at = now()
           FROM runs me
          WHERE me.id = $2 AND s.id = $1 AND s.tenant_id = me.tenant_id
            AND (s.active_run_id IS NULL OR s.lease_expires_at IS NULL OR s.lease_expires_at < now())
            AND me.status IN ('queued', 'running') AND NOT me.cancel_requested
            AND NOT EXISTS (
              SELECT 1 FROM runs r
               WHERE r.session_id = $1 AND r.tenant_id = me.tenant_id AND r.id <> $2 AND (r.status IN ('queued', 'running') OR (r.status = 'interrupted' AND r.finished_at IS NULL))
                 AND (r.created_at, r.id) < (me.created_at, me.id))
          RETURNING s.id`,
        [sessionId, runId, String(leaseMs)],
      ),
    );
    return rows.length > 0;
  }

  /** Who holds the session's live lease, and for how much longer. */
  async leaseHolder(sessionId: string, tenantId: string): Promise<{ runId: string; remainingMs: number } | null> {
    const rows = rowsOf<{ active_run_id: string; ms: number }>(
      await this.db.query(
        `SELECT active_run_id, GREATEST(0, EXTRACT(EPOCH FROM (lease_expires_at - now())) * 1000)::int AS ms
           FROM sessions WHERE id = $1 AND tenant_id = $2 AND active_run_id IS NOT NULL AND lease_expires_at > now()`,
        [sessionId, tenantId],
      ),
    );
    return rows[0] ? { runId: rows[0].active_run_id, remainingMs: rows[0].ms } : null;
  }

  /** Heartbeat of the worker running the turn. False when the lease is no longer this run's. */
  async renewLease(sessionId: string, runId: string, leaseMs: number): Promise<boolean> {
    const rows = rowsOf(
      await this.db.query(
        `UPDATE sessions SET lease_expires_at = now() + ($3 || ' milliseconds')::interval WHERE id = $1 AND active_run_id = $2 RETURNING id`,
        [sessionId, runId, String(leaseMs)],
      ),
    );
    return rows.length > 0;
  }

  async releaseLease(sessionId: string, runId: string): Promise<void> {
    await this.db.query(`UPDATE sessions SET active_run_id = NULL, lease_expires_at = NULL WHERE id = $1 AND active_run_id = $2`, [
      sessionId,
      runId,
    ]);
  }

  /** A turn stopped at a step boundary (shutdown, database outage): queued again, the attempt not counted. */
  async handBack(sessionId: string, runId: string): Promise<void> {
    await this.db.query(
      `WITH back AS (
         UPDATE runs SET status = 'queued', attempts = GREATEST(attempts - 1, 0), updated_at = now()
          WHERE id = $2 AND status = 'running' RETURNING id)
       UPDATE sessions SET active_run_id = NULL, lease_expires_at = NULL WHERE id = $1 AND active_run_id = $2`,
      [sessionId, runId],
    );
  }

  /** Usage so far (all attempts): written after every model call, so a crashed attempt's calls still count. */
  async saveUsage(runId: string, u: RunUsage): Promise<void> {
    await this.db.query(
      `UPDATE runs SET llm_calls = $2, prompt_tokens = $3, completion_tokens = $4, model_calls = $5 WHERE id = $1 AND status = 'running'`,
      [runId, u.totals.calls, u.totals.promptTokens, u.totals.completionTokens, JSON.stringify(u.calls)],
    );
  }

  /** The model calls earlier attempts of a run recorded. */
  async modelCalls(runId: string): Promise<AttemptCallRecord[]> {
    const rows = rowsOf<{ model_calls: AttemptCallRecord[] | null }>(
      await this.db.query(`SELECT model_calls FROM runs WHERE id = $1`, [runId]),
    );
    return rows[0]?.model_calls ?? [];
  }

  async findByIdempotencyKey(tenantId: string, key: string): Promise<{ id: string; requestHash: string | null } | null> {
    const rows = rowsOf<{ id: string; request_hash: string | null }>(
      await this.db.query(`SELECT id, request_hash FROM runs WHERE tenant_id = $1 AND idempotency_key = $2`, [tenantId, key]),
    );
    return rows[0] ? { id: rows[0].id, requestHash: rows[0].request_hash } : null;
  }

  /** False when another run of the tenant took the key first (unique index). */
  async claimIdempotencyKey(runId: string, key: string, requestHash: string): Promise<boolean> {
    try {
      await this.db.query(`UPDATE runs SET idempotency_key = $2, request_hash = $3 WHERE id = $1`, [runId, key, requestHash]);
      return true;
    } catch (err) {
      if ((err as { code?: string; driverError?: { code?: string } }).code === '23505') return false;
      if ((err as { driverError?: { code?: string } }).driverError?.code === '23505') return false;
      throw err;
    }
  }

  async releaseIdempotencyKey(runId: string): Promise<void> {
    await this.db.query(`UPDATE runs SET idempotency_key = NULL WHERE id = $1`, [runId]);
  }

  /** Undo an acceptance that lost an idempotency race (never enqueued). */
  async discard(runId: string, session: { id: string; tenantId: string } | null): Promise<void> {
    await this.db.query(`DELETE FROM runs WHERE id = $1`, [runId]);
    if (session)
      await this.db.query(
        `DELETE FROM sessions s WHERE s.id = $1 AND s.tenant_id = $2
            AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.session_id = s.id AND r.tenant_id = s.tenant_id)`,
        [session.id, session.tenantId],
      );
  }

  /**
   * Accepted runs nobody is executing: queued for more than `graceMs`, or running without a live session lease
   * (its worker died or lost its job). A sync run is left to its request until `syncGraceMs` (its client may
   * still be waiting for the lease). The reconciler checks each against the queue.
   */
  async unfinished(graceMs: number, syncGraceMs: number, limit = 500): Promise<ReconcileCandidate[]> {
    return rowsOf<ReconcileCandidate>(
      await this.db.query(
        `SELECT r.id, r.status, r.attempts FROM runs r
          WHERE r.status IN ('queued', 'running') AND r.created_at < now() - ($1 || ' milliseconds')::interval
            AND (r.mode = 'async' OR r.created_at < now() - ($3 || ' milliseconds')::interval)
            AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = r.session_id AND s.tenant_id = r.tenant_id AND s.active_run_id = r.id AND s.lease_expires_at > now())
          ORDER BY r.created_at ASC LIMIT $2`,
        [String(graceMs), limit, String(syncGraceMs)],
      ),
    );
  }

  /** The run of the session that takes the lease next (the earliest accepted unfinished one). */
  async nextOfSession(sessionId: string, tenantId: string): Promise<string | null> {
    const rows = rowsOf<{ id: string }>(
      await this.db.query(
        `SELECT id FROM runs WHERE session_id = $1 AND tenant_id = $2 AND status = 'queued' AND NOT cancel_requested
          ORDER BY created_at, id LIMIT 1`,
        [sessionId, tenantId],
      ),
    );
    return rows[0]?.id ?? null;
  }
}
