import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The webhook sweep (src/langgraph-api/runs/webhook-delivery.ts) runs in every API process every 2 s: without
 * an index it scanned the whole `runs` table each time (its CPU grew with the table). This partial index holds
 * only runs with an undelivered webhook, and the sweep's WHERE repeats its predicate so the planner uses it.
 */
export class WebhookSweepIndex1764000000000 implements MigrationInterface {
  name = 'WebhookSweepIndex1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX IF NOT EXISTS idx_runs_webhook_pending ON runs (updated_at)
        WHERE input ? 'lg' AND input #>> '{lg,webhook}' IS NOT NULL AND input #>> '{lg,webhook_delivery,done}' IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS idx_runs_webhook_pending`);
  }
}
