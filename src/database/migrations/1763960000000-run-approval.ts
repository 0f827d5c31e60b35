import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tool approval (TOOL_APPROVAL): a run can wait for an operator — status `interrupted` — with the call it
 * waits on (and, once decided, the decision) in `pending_approval`.
 */
export class RunApproval1763960000000 implements MigrationInterface {
  name = 'RunApproval1763960000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs DROP CONSTRAINT IF EXISTS runs_status_check`);
    await q.query(
      `ALTER TABLE runs ADD CONSTRAINT runs_status_check
         CHECK (status IN ('queued', 'running', 'interrupted', 'completed', 'failed', 'cancelled'))`,
    );
    await q.query(`ALTER TABLE runs ADD COLUMN IF NOT EXISTS pending_approval jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE runs SET status = 'cancelled' WHERE status = 'interrupted'`);
    await q.query(`ALTER TABLE runs DROP COLUMN IF EXISTS pending_approval`);
    await q.query(`ALTER TABLE runs DROP CONSTRAINT IF EXISTS runs_status_check`);
    await q.query(
      `ALTER TABLE runs ADD CONSTRAINT runs_status_check CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled'))`,
    );
  }
}
