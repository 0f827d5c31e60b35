import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Users inside a tenant: a run records who asked for it (the `AUTH_USER_CLAIM` of a bearer token; null for API
 * keys, crons and the runs before this migration). Recorded only: visibility stays per tenant.
 */
export class RunOwner1764010000000 implements MigrationInterface {
  name = 'RunOwner1764010000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs ADD COLUMN IF NOT EXISTS owner text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs DROP COLUMN IF EXISTS owner`);
  }
}
