import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { type AuthFilters, metadataContainment } from '../../auth/auth-filters';
import { ORCHESTRATOR_DATA_SOURCE } from '../../database/data-source-name';
import { rowsOf } from '../../database/query-rows';

export interface CronRow {
  tenantId: string;
  cronId: string;
  assistantId: string;
  threadId: string | null;
  schedule: string;
  timezone: string | null;
  endTime: Date | null;
  payload: Record<string, unknown>;
  metadata: Record<string, unknown>;
  onRunCompleted: 'delete' | 'keep';
  enabled: boolean;
  userId: string | null;
  nextRunDate: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type NewCron = Omit<CronRow, 'createdAt' | 'updatedAt'>;
export type CronChanges = Partial<
  Pick<CronRow, 'schedule' | 'timezone' | 'endTime' | 'payload' | 'metadata' | 'onRunCompleted' | 'enabled' | 'nextRunDate'>
>;

export interface CronFilter {
  assistantId?: string | null;
  threadId?: string | null;
  enabled?: boolean | null;
  metadata?: Record<string, unknown> | null;
  /** the custom auth's filter on the cron's metadata */
  auth?: AuthFilters;
}

const SORTS: Record<string, string> = {
  cron_id: 'cron_id',
  assistant_id: 'assistant_id',
  thread_id: 'thread_id',
  created_at: 'created_at',
  updated_at: 'updated_at',
  next_run_date: 'next_run_date',
};

const COLUMNS: Record<keyof CronChanges, string> = {
  schedule: 'schedule',
  timezone: 'timezone',
  endTime: 'end_time',
  payload: 'payload',
  metadata: 'metadata',
  onRunCompleted: 'on_run_completed',
  enabled: 'enabled',
  nextRunDate: 'next_run_date',
};

type Row = Record<string, unknown>;
const date = (v: unknown) => (v == null ? null : new Date(v as string));

function cronRow(r: Row): CronRow {
  return {
    tenantId: r.tenant_id as string,
    cronId: r.cron_id as string,
    assistantId: r.assistant_id as string,
    threadId: (r.thread_id as string | null) ?? null,
    schedule: r.schedule as string,
    timezone: (r.timezone as string | null) ?? null,
    endTime: date(r.end_time),
    payload: (r.payload as Record<string, unknown>) ?? {},
    metadata: (r.metadata as Record<string, unknown>) ?? {},
    onRunCompleted: r.on_run_completed as 'delete' | 'keep',
    enabled: Boolean(r.enabled),
    userId: (r.user_id as string | null) ?? null,
    nextRunDate: date(r.next_run_date),
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
}

const json = (v: unknown) => (v !== null && typeof v === 'object' ? JSON.stringify(v) : v);

/** The SQL on `lg_crons`; every query but the scheduler's start-up listing is per tenant. */
@Injectable()
export class CronsRepository {
  constructor(@InjectDataSource(ORCHESTRATOR_DATA_SOURCE) private readonly dataSource: DataSource) {}

  /**
   * Inserts the cron unless its tenant has `maxPerTenant` already ('limit'): counted and inserted under a per-tenant
   * transaction lock, so concurrent creations cannot pass the cap together.
   */
  async insert(c: NewCron, maxPerTenant: number): Promise<CronRow | 'limit'> {
    return this.dataSource.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('lg_crons:' || $1))`, [c.tenantId]);
      const counted = rowsOf<{ n: string }>(await tx.query(`SELECT count(*) AS n FROM lg_crons WHERE tenant_id = $1`, [c.tenantId]));
      if (Number(counted[0]?.n ?? 0) >= maxPerTenant) return 'limit';
      const rows = rowsOf<Row>(
        await tx.query(
          `INSERT INTO lg_crons (tenant_id, cron_id, assistant_id, thread_id, schedule, timezone, end_time, payload, metadata,
                               on_run_completed, enabled, user_id, next_run_date)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING *`,
          [
            c.tenantId,
            c.cronId,
            c.assistantId,
            c.threadId,
            c.schedule,
            c.timezone,
            c.endTime,
            JSON.stringify(c.payload),
            JSON.stringify(c.metadata),
            c.onRunCompleted,
            c.enabled,
            c.userId,
            c.nextRunDate,
          ],
        ),
      );
      return cronRow(rows[0]);
    });
  }

  async get(tenantId: string, cronId: string): Promise<CronRow | null> {
    const rows = rowsOf<Row>(
      await this.dataSource.query(`SELECT * FROM lg_crons WHERE tenant_id = $1 AND cron_id = $2`, [tenantId, cronId]),
    );
    return rows[0] ? cronRow(rows[0]) : null;
  }

  /** Applies `changes`; null when there is no such cron. */
  async update(tenantId: string, cronId: string, changes: CronChanges): Promise<CronRow | null> {
    const params: unknown[] = [tenantId, cronId];
    const sets = Object.entries(changes)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${COLUMNS[k as keyof CronChanges]} = $${params.push(json(v))}`);
    const rows = rowsOf<Row>(
      await this.dataSource.query(
        `UPDATE lg_crons SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE tenant_id = $1 AND cron_id = $2 RETURNING *`,
        params,
      ),
    );
    return rows[0] ? cronRow(rows[0]) : null;
  }

  /** Records when the cron fires next (no `updated_at` change: the cron itself did not change). */
  async setNextRunDate(tenantId: string, cronId: string, next: Date | null): Promise<void> {
    await this.dataSource.query(`UPDATE lg_crons SET next_run_date = $3 WHERE tenant_id = $1 AND cron_id = $2`, [tenantId, cronId, next]);
  }

  async delete(tenantId: string, cronId: string): Promise<boolean> {
    const rows = rowsOf(
      await this.dataSource.query(`DELETE FROM lg_crons WHERE tenant_id = $1 AND cron_id = $2 RETURNING cron_id`, [tenantId, cronId]),
    );
    return rows.length > 0;
  }

  async search(
    tenantId: string,
    f: CronFilter,
    sort: { by?: string | null; order?: string | null },
    page: { limit: number; offset: number },
  ): Promise<CronRow[]> {
    const { where, params } = this.where(tenantId, f);
    const by = SORTS[sort.by ?? 'created_at'] ?? 'created_at';
    const order = sort.order === 'asc' ? 'ASC' : 'DESC';
    params.push(page.limit, page.offset);
    const rows = rowsOf<Row>(
      await this.dataSource.query(
        `SELECT * FROM lg_crons ${where} ORDER BY ${by} ${order} NULLS LAST, cron_id ${order} LIMIT $${params.length - 1} OFFSET $${params.length}`,
        params,
      ),
    );
    return rows.map(cronRow);
  }

  async count(tenantId: string, f: CronFilter): Promise<number> {
    const { where, params } = this.where(tenantId, f);
    const rows = rowsOf<{ n: string }>(await this.dataSource.query(`SELECT count(*) AS n FROM lg_crons ${where}`, params));
    return Number(rows[0]?.n ?? 0);
  }

  /** Every enabled cron of every tenant: the in-process scheduler's schedule at start-up. */
  async allEnabled(): Promise<CronRow[]> {
    const rows = rowsOf<Row>(await this.dataSource.query(`SELECT * FROM lg_crons WHERE enabled ORDER BY created_at`));
    return rows.map(cronRow);
  }

  private where(tenantId: string, f: CronFilter): { where: string; params: unknown[] } {
    const params: unknown[] = [tenantId];
    const conds = ['tenant_id = $1'];
    if (f.assistantId) conds.push(`assistant_id = $${params.push(f.assistantId)}`);
    if (f.threadId) conds.push(`thread_id = $${params.push(f.threadId)}`);
    if (f.enabled != null) conds.push(`enabled = $${params.push(f.enabled)}`);
    if (f.metadata) conds.push(`metadata @> $${params.push(JSON.stringify(f.metadata))}::jsonb`);
    if (f.auth) conds.push(`metadata @> $${params.push(JSON.stringify(metadataContainment(f.auth)))}::jsonb`);
    return { where: `WHERE ${conds.join(' AND ')}`, params };
  }
}
