import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { ORCHESTRATOR_DATA_SOURCE } from '../../database/data-source-name';
import { rowsOf } from '../../database/query-rows';

/** An assistant as the LangGraph API shows it (a version of one has no `updated_at`). */
export interface AssistantWire {
  assistant_id: string;
  graph_id: string;
  config: Record<string, unknown>;
  context: unknown;
  metadata: Record<string, unknown>;
  version: number;
  name: string;
  description: string | null;
  created_at: string;
  updated_at?: string;
}

export interface AssistantFields {
  graph_id: string;
  config: Record<string, unknown>;
  context: unknown;
  metadata: Record<string, unknown>;
  name: string;
  description: string | null;
}

export interface AssistantFilter {
  graph_id?: string | null;
  name?: string | null;
  metadata?: Record<string, unknown> | null;
}

/** Bounds a tenant's listing (search merges stored and built-in assistants before paging). */
const LIST_CAP = 10_000;
const COLUMNS = `assistant_id, graph_id, config, context, metadata, version, name, description, created_at`;

type Row = Record<string, unknown>;

function wire(r: Row, withUpdated = true): AssistantWire {
  return {
    assistant_id: r.assistant_id as string,
    graph_id: r.graph_id as string,
    config: (r.config as Record<string, unknown>) ?? {},
    context: r.context ?? {},
    metadata: (r.metadata as Record<string, unknown>) ?? {},
    version: Number(r.version),
    name: r.name as string,
    description: (r.description as string | null) ?? null,
    created_at: new Date(r.created_at as string).toISOString(),
    ...(withUpdated ? { updated_at: new Date((r.updated_at ?? r.created_at) as string).toISOString() } : {}),
  };
}

/** User-created assistants (`lg_assistants`) and their versions (`lg_assistant_versions`); every query is per tenant. */
@Injectable()
export class AssistantsRepository {
  constructor(@InjectDataSource(ORCHESTRATOR_DATA_SOURCE) private readonly dataSource: DataSource) {}

  /** Inserts version 1, or returns null when the tenant already has an assistant with this id. */
  async insert(tenantId: string, id: string, a: AssistantFields): Promise<AssistantWire | null> {
    return this.dataSource.transaction(async (m) => {
      const rows = rowsOf<Row>(
        await m.query(
          `INSERT INTO lg_assistants (tenant_id, assistant_id, graph_id, config, context, metadata, name, description)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (tenant_id, assistant_id) DO NOTHING RETURNING ${COLUMNS}, updated_at`,
          [
            tenantId,
            id,
            a.graph_id,
            JSON.stringify(a.config),
            JSON.stringify(a.context ?? {}),
            JSON.stringify(a.metadata),
            a.name,
            a.description,
          ],
        ),
      );
      if (rows.length === 0) return null;
      await m.query(
        `INSERT INTO lg_assistant_versions (tenant_id, assistant_id, version, graph_id, config, context, metadata, name, description, created_at)
         SELECT tenant_id, assistant_id, version, graph_id, config, context, metadata, name, description, created_at
           FROM lg_assistants WHERE tenant_id = $1 AND assistant_id = $2`,
        [tenantId, id],
      );
      return wire(rows[0]);
    });
  }

  async get(tenantId: string, id: string): Promise<AssistantWire | null> {
    const rows = rowsOf<Row>(
      await this.dataSource.query(`SELECT ${COLUMNS}, updated_at FROM lg_assistants WHERE tenant_id = $1 AND assistant_id = $2`, [
        tenantId,
        id,
      ]),
    );
    return rows[0] ? wire(rows[0]) : null;
  }

  async list(tenantId: string, f: AssistantFilter): Promise<AssistantWire[]> {
    const where = ['tenant_id = $1'];
    const params: unknown[] = [tenantId];
    if (f.graph_id) where.push(`graph_id = $${params.push(f.graph_id)}`);
    if (f.name) where.push(`strpos(lower(name), lower($${params.push(f.name)})) > 0`);
    if (f.metadata) where.push(`metadata @> $${params.push(JSON.stringify(f.metadata))}::jsonb`);
    const rows = rowsOf<Row>(
      await this.dataSource.query(
        `SELECT ${COLUMNS}, updated_at FROM lg_assistants WHERE ${where.join(' AND ')} ORDER BY created_at DESC LIMIT ${LIST_CAP}`,
        params,
      ),
    );
    return rows.map((r) => wire(r));
  }

  /** A new version with the changed fields (metadata merged); null when there is no such assistant. */
  async patch(tenantId: string, id: string, change: Partial<AssistantFields>): Promise<AssistantWire | null> {
    return this.dataSource.transaction(async (m) => {
      const current = rowsOf<Row>(
        await m.query(`SELECT ${COLUMNS} FROM lg_assistants WHERE tenant_id = $1 AND assistant_id = $2 FOR UPDATE`, [tenantId, id]),
      )[0];
      if (!current) return null;
      const [{ next }] = rowsOf<{ next: number }>(
        await m.query(
          `SELECT COALESCE(max(version), 0) + 1 AS next FROM lg_assistant_versions WHERE tenant_id = $1 AND assistant_id = $2`,
          [tenantId, id],
        ),
      );
      const merged: AssistantFields = {
        graph_id: change.graph_id ?? (current.graph_id as string),
        config: change.config ?? (current.config as Record<string, unknown>),
        context: change.context ?? current.context,
        metadata: change.metadata
          ? { ...(current.metadata as Record<string, unknown>), ...change.metadata }
          : (current.metadata as Record<string, unknown>),
        name: change.name ?? (current.name as string),
        description:
          change.description !== undefined && change.description !== null
            ? change.description
            : ((current.description as string | null) ?? null),
      };
      const rows = rowsOf<Row>(
        await m.query(
          `UPDATE lg_assistants SET graph_id = $3, config = $4, context = $5, metadata = $6, name = $7, description = $8, version = $9, updated_at = now()
            WHERE tenant_id = $1 AND assistant_id = $2 RETURNING ${COLUMNS}, updated_at`,
          [
            tenantId,
            id,
            merged.graph_id,
            JSON.stringify(merged.config),
            JSON.stringify(merged.context ?? {}),
            JSON.stringify(merged.metadata),
            merged.name,
            merged.description,
            next,
          ],
        ),
      );
      await m.query(
        `INSERT INTO lg_assistant_versions (tenant_id, assistant_id, version, graph_id, config, context, metadata, name, description, created_at)
         SELECT tenant_id, assistant_id, version, graph_id, config, context, metadata, name, description, updated_at
           FROM lg_assistants WHERE tenant_id = $1 AND assistant_id = $2`,
        [tenantId, id],
      );
      return wire(rows[0]);
    });
  }

  /** Deletes every assistant of the tenant (their versions go with them): the operator's reset. */
  async deleteAllOfTenant(tenantId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM lg_assistants WHERE tenant_id = $1`, [tenantId]);
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    const rows = rowsOf(
      await this.dataSource.query(`DELETE FROM lg_assistants WHERE tenant_id = $1 AND assistant_id = $2 RETURNING assistant_id`, [
        tenantId,
        id,
      ]),
    );
    return rows.length > 0;
  }

  async versions(
    tenantId: string,
    id: string,
    metadata: Record<string, unknown> | null | undefined,
    limit: number,
    offset: number,
  ): Promise<AssistantWire[]> {
    const params: unknown[] = [tenantId, id, limit, offset];
    const filter = metadata ? `AND metadata @> $${params.push(JSON.stringify(metadata))}::jsonb` : '';
    const rows = rowsOf<Row>(
      await this.dataSource.query(
        `SELECT ${COLUMNS} FROM lg_assistant_versions WHERE tenant_id = $1 AND assistant_id = $2 ${filter} ORDER BY version DESC LIMIT $3 OFFSET $4`,
        params,
      ),
    );
    return rows.map((r) => wire(r, false));
  }

  /** Makes an earlier version the current one; 'no-assistant' / 'no-version' when either is missing. */
  async setLatest(tenantId: string, id: string, version: number): Promise<AssistantWire | 'no-assistant' | 'no-version'> {
    const rows = rowsOf<Row>(
      await this.dataSource.query(
        `UPDATE lg_assistants a SET graph_id = v.graph_id, config = v.config, context = v.context, metadata = v.metadata, name = v.name,
                description = v.description, version = v.version, updated_at = now()
           FROM lg_assistant_versions v
          WHERE a.tenant_id = $1 AND a.assistant_id = $2 AND v.tenant_id = a.tenant_id AND v.assistant_id = a.assistant_id AND v.version = $3
         RETURNING a.assistant_id, a.graph_id, a.config, a.context, a.metadata, a.version, a.name, a.description, a.created_at, a.updated_at`,
        [tenantId, id, version],
      ),
    );
    if (rows[0]) return wire(rows[0]);
    return (await this.get(tenantId, id)) ? 'no-version' : 'no-assistant';
  }
}
