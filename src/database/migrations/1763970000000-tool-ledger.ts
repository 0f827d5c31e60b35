import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Durability: the tool ledger (a tool call's recorded result, keyed by run and `tool_call_id`, returned
 * instead of running the tool again when a crashed run resumes), `Idempotency-Key` on runs, and the run's model
 * calls of every attempt.
 */
export class ToolLedger1763970000000 implements MigrationInterface {
  name = 'ToolLedger1763970000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS tool_ledger (
        run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        tool_call_id text NOT NULL,
        tool_name text NOT NULL,
        args text NOT NULL,
        content text NOT NULL,
        status text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (run_id, tool_call_id))`);
    await q.query(`ALTER TABLE runs ADD COLUMN IF NOT EXISTS idempotency_key text`);
    await q.query(`ALTER TABLE runs ADD COLUMN IF NOT EXISTS request_hash text`);
    // every model call of every attempt, written as the run goes (a crashed attempt's calls are not lost)
    await q.query(`ALTER TABLE runs ADD COLUMN IF NOT EXISTS model_calls jsonb`);
    await q.query(
      `CREATE UNIQUE INDEX IF NOT EXISTS runs_tenant_idempotency_key ON runs (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS runs_tenant_idempotency_key`);
    await q.query(`ALTER TABLE runs DROP COLUMN IF EXISTS model_calls`);
    await q.query(`ALTER TABLE runs DROP COLUMN IF EXISTS request_hash`);
    await q.query(`ALTER TABLE runs DROP COLUMN IF EXISTS idempotency_key`);
    await q.query(`DROP TABLE IF EXISTS tool_ledger`);
  }
}
