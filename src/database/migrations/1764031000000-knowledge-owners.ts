import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who uploaded a document or a contract (the user of a bearer token or of the custom auth; null for an API key's
 * upload). Knowledge stays the tenant's to read; the owner is who may delete it besides an admin
 * (auth/resource-access.ts, the knowledge rule).
 */
export class KnowledgeOwners1764031000000 implements MigrationInterface {
  name = 'KnowledgeOwners1764031000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE documents ADD COLUMN IF NOT EXISTS owner text`);
    await q.query(`ALTER TABLE contracts ADD COLUMN IF NOT EXISTS owner text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE documents DROP COLUMN IF EXISTS owner`);
    await q.query(`ALTER TABLE contracts DROP COLUMN IF EXISTS owner`);
  }
}
