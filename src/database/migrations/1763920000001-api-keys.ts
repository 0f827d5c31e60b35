import { MigrationInterface, QueryRunner } from 'typeorm';

/** API keys managed by `npm run api-keys` (only the SHA-256 of a key is stored; the key is shown once). */
export class ApiKeys1763920000001 implements MigrationInterface {
  name = 'ApiKeys1763920000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL CHECK (tenant_id ~ '^[A-Za-z0-9._-]{1,64}$'),
        name text NOT NULL DEFAULT '',
        key_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX idx_api_keys_tenant ON api_keys (tenant_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE api_keys`);
  }
}
