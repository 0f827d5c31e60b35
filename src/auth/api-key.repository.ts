import { randomUUID } from 'node:crypto';

import { hashKey, newKey } from './api-key';
import { TENANT_ID_PATTERN } from './tenant';

/** Runs one SQL statement and returns its rows (TypeORM's DataSource.query or a pg client). */
export type QueryFn = (sql: string, params: unknown[]) => Promise<unknown>;

export interface ApiKeyRow {
  id: string;
  tenant_id: string;
  name: string;
  key_hash: string;
  created_at: Date;
  revoked_at: Date | null;
}

function rows<T>(result: unknown): T[] {
  return (Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result) as T[];
}

/** The `api_keys` table: hashed keys per tenant, created and revoked by the admin command. */
export class ApiKeyRepository {
  constructor(private readonly query: QueryFn) {}

  async create(tenantId: string, name = ''): Promise<{ id: string; key: string }> {
    if (!TENANT_ID_PATTERN.test(tenantId)) throw new Error('tenant must be 1–64 chars of [A-Za-z0-9._-]');
    const key = newKey();
    const id = randomUUID();
    await this.query(`INSERT INTO api_keys (id, tenant_id, name, key_hash) VALUES ($1, $2, $3, $4)`, [id, tenantId, name, hashKey(key)]);
    return { id, key };
  }

  async list(tenantId?: string): Promise<ApiKeyRow[]> {
    return rows<ApiKeyRow>(
      await this.query(
        `SELECT id, tenant_id, name, key_hash, created_at, revoked_at FROM api_keys WHERE ($1::text IS NULL OR tenant_id = $1) ORDER BY created_at`,
        [tenantId ?? null],
      ),
    );
  }

  /** Revokes a key of the tenant by id; false when there is no such active key. */
  async revoke(tenantId: string, id: string): Promise<boolean> {
    const out = rows<{ id: string }>(
      await this.query(
        `UPDATE api_keys SET revoked_at = now() WHERE tenant_id = $1 AND id::text = $2 AND revoked_at IS NULL RETURNING id`,
        [tenantId, id],
      ),
    );
    return out.length > 0;
  }

  async findActive(hash: string): Promise<{ id: string; tenant_id: string; key_hash: string } | null> {
    const [row] = rows<{ id: string; tenant_id: string; key_hash: string }>(
      await this.query(`SELECT id, tenant_id, key_hash FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL`, [hash]),
    );
    return row ?? null;
  }

  /**
   * Whether keys are managed in the table at all: a revoked key counts, so revoking the last one leaves the
   * service closed (every key refused) instead of opening it to everyone as tenant `default`.
   */
  async anyIssued(): Promise<boolean> {
    const [row] = rows<{ any: boolean }>(await this.query(`SELECT EXISTS (SELECT 1 FROM api_keys) AS any`, []));
    return Boolean(row?.any);
  }
}
