import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { type AuthFilters, metadataContainment } from '../../auth/auth-filters';
import { threadIdOf } from '../../auth/tenant';
import { CHECKPOINT_SCHEMA } from '../../database/checkpoint-schema';
import { hasCheckpointSql } from '../../database/checkpoint-tables';
import { ORCHESTRATOR_DATA_SOURCE } from '../../database/data-source-name';
import { rowsOf } from '../../database/query-rows';
import { leaseHeld, notExpired, unfinished } from '../../runs/store/run-rules';

export type ThreadStatus = 'idle' | 'busy' | 'interrupted' | 'error';

export interface ThreadRow {
  id: string;
  agent: string | null;
  metadata: Record<string, unknown>;
  status: ThreadStatus;
  createdAt: Date;
  updatedAt: Date;
}

export interface ThreadFilter {
  metadata?: Record<string, unknown> | null;
  status?: ThreadStatus | null;
  ids?: string[] | null;
  /** the custom auth's filter on the thread's metadata */
  auth?: AuthFilters;
}

/** ` AND s.metadata @> $n` for the custom auth's filter (its value pushed onto `params`); '' without one. */
function authCondition(params: unknown[], auth: AuthFilters | undefined): string {
  if (!auth) return '';
  return ` AND s.metadata @> $${params.push(JSON.stringify(metadataContainment(auth)))}::jsonb`;
}

/**
 * A session as a thread, status included (an expired one is left out: retention, run-rules `notExpired`): `busy` while its lease is held (a run, a state update) or a run is running,
 * `interrupted` / `error` when the latest run is interrupted / failed, else `idle`.
 */
const THREADS = `
  SELECT s.id, s.agent, s.metadata, s.created_at, s.updated_at,
         CASE WHEN ${leaseHeld('s')} OR lr.status = 'running' THEN 'busy'
              WHEN lr.status = 'interrupted' THEN 'interrupted'
              WHEN lr.status = 'failed' THEN 'error'
              ELSE 'idle' END AS status
    FROM sessions s
    LEFT JOIN LATERAL (
      SELECT r.status FROM runs r WHERE r.tenant_id = s.tenant_id AND r.session_id = s.id ORDER BY r.created_at DESC, r.id DESC LIMIT 1
    ) lr ON true
   WHERE s.tenant_id = $1 AND ${notExpired('s')}`;

const SORTS: Record<string, string> = {
  thread_id: 'id',
  status: 'status',
  created_at: 'created_at',
  updated_at: 'updated_at',
  state_updated_at: 'updated_at',
};

type Row = Record<string, unknown>;

function threadRow(r: Row): ThreadRow {
  return {
    id: r.id as string,
    agent: (r.agent as string | null) ?? null,
    metadata: (r.metadata as Record<string, unknown>) ?? {},
    status: r.status as ThreadStatus,
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
}

/**
 * The LangGraph API's reads of sessions (threads) and of whether they have checkpoints; every query is per tenant.
 * Sessions and their checkpoints are written by the run store's SessionStore.
 */
@Injectable()
export class ThreadsRepository {
  constructor(@InjectDataSource(ORCHESTRATOR_DATA_SOURCE) private readonly dataSource: DataSource) {}

  /** The thread; null when it does not exist or the custom auth's filter hides it. */
  async get(tenantId: string, id: string, auth?: AuthFilters): Promise<ThreadRow | null> {
    const params: unknown[] = [tenantId, id];
    const rows = rowsOf<Row>(await this.dataSource.query(`${THREADS} AND s.id = $2${authCondition(params, auth)}`, params));
    return rows[0] ? threadRow(rows[0]) : null;
  }

  /**
   * The thread with the ids of its runs that have not ended (queued, running, or waiting for a tool approval),
   * oldest first, and whether it has a checkpoint: what accepting a run on it reads (the thread, its runs for the
   * multitask strategy, whether the run's graph has a state to read) in one statement.
   */
  async getWithInflight(
    tenantId: string,
    id: string,
    auth?: AuthFilters,
  ): Promise<{ row: ThreadRow; inflight: string[]; hasCheckpoint: boolean } | null> {
    const params: unknown[] = [tenantId, id, threadIdOf(tenantId, id)];
    const filtered = authCondition(params, auth);
    const rows = rowsOf<Row>(
      await this.dataSource.query(
        `SELECT t.*, ARRAY(
            SELECT r.id::text FROM runs r WHERE r.tenant_id = $1 AND r.session_id = $2 AND ${unfinished('r')}
             ORDER BY r.created_at, r.id) AS inflight,
           ${hasCheckpointSql('$3')} AS has_checkpoint
           FROM (${THREADS} AND s.id = $2${filtered}) t`,
        params,
      ),
    );
    const r = rows[0];
    return r ? { row: threadRow(r), inflight: (r.inflight as string[] | null) ?? [], hasCheckpoint: r.has_checkpoint === true } : null;
  }

  /** Whether the thread has this (root) checkpoint. */
  async hasCheckpoint(tenantId: string, id: string, checkpointId: string): Promise<boolean> {
    const rows = rowsOf(
      await this.dataSource.query(
        `SELECT 1 FROM "${CHECKPOINT_SCHEMA}".checkpoints WHERE thread_id = $1 AND checkpoint_ns = '' AND checkpoint_id = $2 LIMIT 1`,
        [threadIdOf(tenantId, id), checkpointId],
      ),
    );
    return rows.length > 0;
  }

  /** Threads matching the filter, sorted; `limit` null → all (bounded by `cap`). */
  async search(
    tenantId: string,
    f: ThreadFilter,
    sort: { by?: string | null; order?: string | null },
    page: { limit: number; offset: number },
  ): Promise<ThreadRow[]> {
    const { where, params } = this.where(tenantId, f);
    const by = SORTS[sort.by ?? 'created_at'] ?? 'created_at';
    const order = sort.order === 'asc' ? 'ASC' : 'DESC';
    params.push(page.limit, page.offset);
    const rows = rowsOf<Row>(
      await this.dataSource.query(
        `SELECT * FROM (${THREADS}) t ${where} ORDER BY ${by} ${order}, id ${order} LIMIT $${params.length - 1} OFFSET $${params.length}`,
        params,
      ),
    );
    return rows.map(threadRow);
  }

  async count(tenantId: string, f: ThreadFilter): Promise<number> {
    const { where, params } = this.where(tenantId, f);
    const rows = rowsOf<{ n: string }>(await this.dataSource.query(`SELECT count(*) AS n FROM (${THREADS}) t ${where}`, params));
    return Number(rows[0]?.n ?? 0);
  }

  private where(tenantId: string, f: ThreadFilter): { where: string; params: unknown[] } {
    const params: unknown[] = [tenantId];
    const conds: string[] = [];
    if (f.metadata) conds.push(`metadata @> $${params.push(JSON.stringify(f.metadata))}::jsonb`);
    if (f.auth) conds.push(`metadata @> $${params.push(JSON.stringify(metadataContainment(f.auth)))}::jsonb`);
    if (f.status) conds.push(`status = $${params.push(f.status)}`);
    if (f.ids?.length) conds.push(`id = ANY($${params.push(f.ids)}::text[])`);
    return { where: conds.length ? `WHERE ${conds.join(' AND ')}` : '', params };
  }
}
