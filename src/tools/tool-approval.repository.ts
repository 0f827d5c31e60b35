import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { ORCHESTRATOR_DATA_SOURCE } from '../database/data-source-name';
import type { PendingApproval } from '../database/entities';
import { rowsOf } from '../database/query-rows';

/**
 * The run-row side of tool approval: a run pauses (`interrupted`, the pending call recorded, the session lease
 * released — one statement), and an operator's decision moves it back to `queued` exactly once.
 */
@Injectable()
export class ToolApprovalRepository {
  constructor(@InjectDataSource(ORCHESTRATOR_DATA_SOURCE) private readonly dataSource: DataSource) {}

  /** running → interrupted with the pending call; false when the run was no longer running. */
  async pause(runId: string, pending: PendingApproval, progress: Record<string, unknown>): Promise<boolean> {
    const rows = rowsOf<{ id: string }>(
      await this.dataSource.query(
        `WITH paused AS (
           UPDATE runs SET status = 'interrupted', pending_approval = $2, progress = $3, updated_at = now()
            WHERE id = $1 AND status = 'running'
            RETURNING id, session_id),
         released AS (
           UPDATE sessions s SET active_run_id = NULL, lease_expires_at = NULL, updated_at = now()
             FROM paused p WHERE s.id = p.session_id AND s.active_run_id = p.id)
         SELECT id FROM paused`,
        [runId, JSON.stringify(pending), JSON.stringify(progress)],
      ),
    );
    return rows.length === 1;
  }

  /** The decision is being acted on: drop it, so a retried attempt asks again instead of reusing it. */
  async consume(runId: string): Promise<void> {
    await this.dataSource.query(`UPDATE runs SET pending_approval = NULL WHERE id = $1 AND status = 'running'`, [runId]);
  }

  /** interrupted → queued with the decision; false when the run is not waiting for one (already decided, ended …). */
  async decide(runId: string, approved: boolean): Promise<boolean> {
    const decision = JSON.stringify({ approved, at: new Date().toISOString() });
    const rows = rowsOf<{ id: string }>(
      await this.dataSource.query(
        `UPDATE runs SET status = 'queued', attempts = GREATEST(attempts - 1, 0), updated_at = now(),
                pending_approval = jsonb_set(pending_approval, '{decision}', $2::jsonb)
          WHERE id = $1 AND status = 'interrupted' AND pending_approval IS NOT NULL
          RETURNING id`,
        [runId, decision],
      ),
    );
    return rows.length === 1;
  }
}
