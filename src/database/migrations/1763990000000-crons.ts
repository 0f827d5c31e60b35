import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Crons of the LangGraph Server API (src/langgraph-api/crons): a schedule that starts a run of an assistant,
 * on a thread (deleted with it) or on a new thread each time (`thread_id` null). The tenant is in the key.
 */
export class Crons1763990000000 implements MigrationInterface {
  name = 'Crons1763990000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS lg_crons (
        tenant_id text NOT NULL,
        cron_id text NOT NULL,
        assistant_id text NOT NULL,
        thread_id text,
        schedule text NOT NULL,
        timezone text,
        end_time timestamptz,
        payload jsonb NOT NULL DEFAULT '{}',
        metadata jsonb NOT NULL DEFAULT '{}',
        on_run_completed text NOT NULL DEFAULT 'delete',
        enabled boolean NOT NULL DEFAULT true,
        user_id text,
        next_run_date timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, cron_id),
        FOREIGN KEY (tenant_id, thread_id) REFERENCES sessions (tenant_id, id) ON DELETE CASCADE,
        CONSTRAINT lg_crons_on_run_completed CHECK (on_run_completed IN ('delete', 'keep')))`);
    await q.query(`CREATE INDEX IF NOT EXISTS idx_lg_crons_tenant_created ON lg_crons (tenant_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS lg_crons`);
  }
}
