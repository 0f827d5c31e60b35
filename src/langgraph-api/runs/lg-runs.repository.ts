import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { ORCHESTRATOR_DATA_SOURCE } from '../../database/data-source-name';
import { rowsOf } from '../../database/query-rows';

/** The LangGraph API's reads of a thread's runs; every query is per tenant (runs are written by the run store). */
@Injectable()
export class LgRunsRepository {
  constructor(@InjectDataSource(ORCHESTRATOR_DATA_SOURCE) private readonly db: DataSource) {}

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
}
