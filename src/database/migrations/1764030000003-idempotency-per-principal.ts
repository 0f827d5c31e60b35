import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `Idempotency-Key` per principal: a key is unique per (tenant, principal, key), so another user (or another API
 * key) of the tenant sending the same key starts a run of its own instead of receiving the first caller's run.
 * `idempotency_scope` names the principal (`user:<id>`, `key:<id>`, '' when the request had neither). Keys written
 * before this migration keep their run: those with an owner are that user's, the others stay in the '' scope.
 */
export class IdempotencyPerPrincipal1764030000003 implements MigrationInterface {
  name = 'IdempotencyPerPrincipal1764030000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs ADD COLUMN IF NOT EXISTS idempotency_scope text NOT NULL DEFAULT ''`);
    await q.query(`UPDATE runs SET idempotency_scope = 'user:' || owner WHERE idempotency_key IS NOT NULL AND owner IS NOT NULL`);
    await q.query(
      `CREATE UNIQUE INDEX IF NOT EXISTS runs_principal_idempotency_key ON runs (tenant_id, idempotency_scope, idempotency_key)
        WHERE idempotency_key IS NOT NULL`,
    );
    await q.query(`DROP INDEX IF EXISTS runs_tenant_idempotency_key`);
  }

  async down(q: QueryRunner): Promise<void> {
    // two principals' runs may now share a key: all but the first of each keep their run and lose the key
    await q.query(
      `UPDATE runs r SET idempotency_key = NULL
        WHERE idempotency_key IS NOT NULL AND EXISTS (
          SELECT 1 FROM runs o WHERE o.tenant_id = r.tenant_id AND o.idempotency_key = r.idempotency_key
             AND (o.created_at, o.id) < (r.created_at, r.id))`,
    );
    await q.query(
      `CREATE UNIQUE INDEX IF NOT EXISTS runs_tenant_idempotency_key ON runs (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
    );
    await q.query(`DROP INDEX IF EXISTS runs_principal_idempotency_key`);
    await q.query(`ALTER TABLE runs DROP COLUMN IF EXISTS idempotency_scope`);
  }
}
