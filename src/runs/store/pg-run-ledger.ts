import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import type { ToolLedger } from '../../core/tool-ledger';
import { ORCHESTRATOR_DATA_SOURCE } from '../../database/data-source-name';
import { rowsOf } from '../../database/query-rows';
import type { AttemptCallRecord, RunUsage } from '../persistent-usage';
import { PgToolLedger } from './pg-tool-ledger';
import { type IdempotencyKey, RunLedger } from './run-ledger';
import { ended } from './run-rules';

/** Attempts per webhook, the n-th retry `WEBHOOK_BACKOFF_MS × 2^(n-1)` after the previous failure. */
export const WEBHOOK_MAX_ATTEMPTS = 5;
const WEBHOOK_BACKOFF_MS = 1000;
const WEBHOOK_STATE = `'{lg,webhook_delivery}'`;
const WEBHOOK_DUE = `input #>> '{lg,webhook}' IS NOT NULL AND input #>> '{lg,webhook_delivery,done}' IS NULL
  AND COALESCE((input #>> '{lg,webhook_delivery,next_at}')::timestamptz, '-infinity') <= now()
  AND COALESCE((input #>> '{lg,webhook_delivery,attempts}')::int, 0) < ${WEBHOOK_MAX_ATTEMPTS} AND ${ended('runs')}`;

/** Usage, idempotency keys, the tool ledger and webhook delivery state in Postgres. */
@Injectable()
export class PgRunLedger extends RunLedger {
  constructor(@InjectDataSource(ORCHESTRATOR_DATA_SOURCE) private readonly db: DataSource) {
    super();
  }

  /** `attempt` 1 reads nothing back: no earlier attempt can have recorded a call (see PgToolLedger). */
  toolLedger(runId: string, attempt: number): ToolLedger {
    return new PgToolLedger(this.db, runId, attempt <= 1);
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

  /** The run that holds the key in its tenant and principal's scope. */
  async findByIdempotencyKey(k: IdempotencyKey): Promise<{ id: string; requestHash: string | null } | null> {
    const rows = rowsOf<{ id: string; request_hash: string | null }>(
      await this.db.query(`SELECT id, request_hash FROM runs WHERE tenant_id = $1 AND idempotency_scope = $2 AND idempotency_key = $3`, [
        k.tenantId,
        k.principal,
        k.key,
      ]),
    );
    return rows[0] ? { id: rows[0].id, requestHash: rows[0].request_hash } : null;
  }

  /** False when another run of the same tenant and principal took the key first (unique index). */
  async claimIdempotencyKey(runId: string, k: IdempotencyKey, requestHash: string): Promise<boolean> {
    try {
      // the run was accepted in k.tenantId: its row's tenant_id completes the key's scope
      await this.db.query(`UPDATE runs SET idempotency_key = $3, idempotency_scope = $2, request_hash = $4 WHERE id = $1`, [
        runId,
        k.principal,
        k.key,
        requestHash,
      ]);
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

  // --- webhook delivery (`input.lg.webhook_delivery`: attempts, next_at, done) ---

  /** Ended runs whose webhook is due (a missed end, a retry), at most 50. */
  async dueWebhooks(): Promise<string[]> {
    const rows = rowsOf<{ id: string }>(
      await this.db.query(`SELECT id FROM runs WHERE input ? 'lg' AND ${WEBHOOK_DUE} AND updated_at > now() - interval '1 day' LIMIT 50`),
    );
    return rows.map((r) => r.id);
  }

  /** The attempt number the caller now owns for `claimMs` (null: not due, or another process has it). */
  async claimWebhook(runId: string, claimMs: number): Promise<number | null> {
    const rows = rowsOf<{ attempts: number }>(
      await this.db.query(
        `UPDATE runs SET input = jsonb_set(input, ${WEBHOOK_STATE}, jsonb_build_object(
            'attempts', COALESCE((input #>> '{lg,webhook_delivery,attempts}')::int, 0) + 1,
            'next_at', to_jsonb(now() + $2 * interval '1 millisecond')))
          WHERE id = $1 AND ${WEBHOOK_DUE}
          RETURNING (input #>> '{lg,webhook_delivery,attempts}')::int AS attempts`,
        [runId, claimMs],
      ),
    );
    return rows[0]?.attempts ?? null;
  }

  /** Records an attempt's outcome: `sent`, `gave_up` after the last attempt, or a retry after the backoff. */
  async settleWebhook(runId: string, attempt: number, ok: boolean): Promise<'sent' | 'gave_up' | null> {
    const done = ok ? 'sent' : attempt >= WEBHOOK_MAX_ATTEMPTS ? 'gave_up' : null;
    await this.db.query(
      `UPDATE runs SET input = jsonb_set(input, ${WEBHOOK_STATE}, jsonb_build_object(
          'attempts', $2::int, 'next_at', to_jsonb(now() + $3 * interval '1 millisecond'), 'done', $4::text, 'at', to_jsonb(now())))
        WHERE id = $1`,
      [runId, attempt, WEBHOOK_BACKOFF_MS * 2 ** (attempt - 1), done],
    );
    return done;
  }
}
