import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { CHECKPOINT_SCHEMA } from '../../database/checkpoint-schema';
import { ORCHESTRATOR_DATA_SOURCE } from '../../database/data-source-name';
import { rowsOf } from '../../database/query-rows';

/** The LangGraph API's SQL on a thread's runs and on the checkpoints a run wrote; every query is per tenant. */
@Injectable()
export class LgRunsRepository {
  constructor(@InjectDataSource(ORCHESTRATOR_DATA_SOURCE) private readonly db: DataSource) {}

  /** Runs of the thread that have not ended (queued, running, or waiting for a tool approval). */
  async inflight(tenantId: string, threadId: string): Promise<string[]> {
    const rows = rowsOf<{ id: string }>(
      await this.db.query(
        `SELECT id FROM runs WHERE tenant_id = $1 AND session_id = $2
            AND (status IN ('queued', 'running') OR (status = 'interrupted' AND finished_at IS NULL)) ORDER BY created_at, id`,
        [tenantId, threadId],
      ),
    );
    return rows.map((r) => r.id);
  }

  /** LangGraph API runs of the tenant (any thread) in these row statuses, oldest first, with their threads. */
  async byStatus(tenantId: string, statuses: string[]): Promise<Array<{ id: string; threadId: string }>> {
    const rows = rowsOf<{ id: string; session_id: string }>(
      await this.db.query(
        `SELECT id, session_id FROM runs WHERE tenant_id = $1 AND status = ANY($2::text[]) AND input ? 'lg'
          ORDER BY created_at, id LIMIT 10000`,
        [tenantId, statuses],
      ),
    );
    return rows.map((r) => ({ id: r.id, threadId: r.session_id }));
  }

  /** Run ids of the thread, newest first. */
  async list(tenantId: string, threadId: string, statuses: string[] | null, limit: number, offset: number): Promise<string[]> {
    const params: unknown[] = [tenantId, threadId, limit, offset];
    const where = statuses ? ` AND status = ANY($${params.push(statuses)}::text[])` : '';
    const rows = rowsOf<{ id: string }>(
      await this.db.query(
        `SELECT id FROM runs WHERE tenant_id = $1 AND session_id = $2${where} ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
        params,
      ),
    );
    return rows.map((r) => r.id);
  }

  /**
   * Deletes an ended run: its row, its messages, and the checkpoints of the thread it wrote (their metadata
   * carries its run id; blobs shared with other checkpoints stay). Returns false when nothing was deleted.
   */
  async deleteRun(tenantId: string, checkpointThread: string, runId: string): Promise<boolean> {
    const s = `"${CHECKPOINT_SCHEMA}"`;
    const ids = rowsOf<{ checkpoint_id: string }>(
      await this.db.query(`SELECT checkpoint_id FROM ${s}.checkpoints WHERE thread_id = $1 AND metadata->>'run_id' = $2`, [
        checkpointThread,
        runId,
      ]),
    ).map((r) => r.checkpoint_id);
    if (ids.length) {
      await this.db.query(`DELETE FROM ${s}.checkpoint_writes WHERE thread_id = $1 AND checkpoint_id = ANY($2::text[])`, [
        checkpointThread,
        ids,
      ]);
      await this.db.query(`DELETE FROM ${s}.checkpoints WHERE thread_id = $1 AND checkpoint_id = ANY($2::text[])`, [checkpointThread, ids]);
    }
    await this.db.query(`DELETE FROM messages WHERE tenant_id = $1 AND run_id = $2`, [tenantId, runId]);
    const rows = rowsOf(await this.db.query(`DELETE FROM runs WHERE tenant_id = $1 AND id = $2 RETURNING id`, [tenantId, runId]));
    return rows.length > 0;
  }
}
