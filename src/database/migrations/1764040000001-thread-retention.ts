import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Thread retention (docs/retention.md): a session's (a thread's) own TTL in minutes (fractions allowed), its strategy
 * (`delete` or `keep_latest`) and when it expires: its last activity plus its TTL. Activity is any change of
 * `updated_at` (its creation, a metadata patch, a run starting or ending, a state update) or of its TTL: a trigger
 * recomputes `expires_at` then, so no statement that writes a session can forget it. The retention sweeper clears
 * `expires_at` of a `keep_latest` thread it pruned (without touching `updated_at`); the next activity sets it again.
 * The partial index serves the sweeper's scan of expired threads.
 */
export class ThreadRetention1764040000001 implements MigrationInterface {
  name = 'ThreadRetention1764040000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sessions ADD COLUMN IF NOT EXISTS ttl_minutes double precision`);
    await q.query(`ALTER TABLE sessions ADD COLUMN IF NOT EXISTS ttl_strategy text`);
    await q.query(`ALTER TABLE sessions ADD COLUMN IF NOT EXISTS expires_at timestamptz`);
    await q.query(
      `DO $$ BEGIN
         ALTER TABLE sessions ADD CONSTRAINT sessions_ttl_check
           CHECK ((ttl_minutes IS NULL OR ttl_minutes > 0) AND (ttl_strategy IS NULL OR ttl_strategy IN ('delete', 'keep_latest')));
       EXCEPTION WHEN duplicate_object THEN NULL; END $$`,
    );
    await q.query(
      `CREATE OR REPLACE FUNCTION sessions_expiry() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF TG_OP = 'INSERT' OR NEW.updated_at IS DISTINCT FROM OLD.updated_at OR NEW.ttl_minutes IS DISTINCT FROM OLD.ttl_minutes THEN
           NEW.expires_at := CASE WHEN NEW.ttl_minutes IS NULL THEN NULL
                                  ELSE COALESCE(NEW.updated_at, now()) + NEW.ttl_minutes * interval '1 minute' END;
         END IF;
         RETURN NEW;
       END $$`,
    );
    await q.query(`DROP TRIGGER IF EXISTS sessions_expiry ON sessions`);
    await q.query(`CREATE TRIGGER sessions_expiry BEFORE INSERT OR UPDATE ON sessions FOR EACH ROW EXECUTE FUNCTION sessions_expiry()`);
    await q.query(`CREATE INDEX IF NOT EXISTS sessions_expires_at_idx ON sessions (expires_at) WHERE expires_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS sessions_expires_at_idx`);
    await q.query(`DROP TRIGGER IF EXISTS sessions_expiry ON sessions`);
    await q.query(`DROP FUNCTION IF EXISTS sessions_expiry()`);
    await q.query(`ALTER TABLE sessions DROP CONSTRAINT IF EXISTS sessions_ttl_check`);
    await q.query(
      `ALTER TABLE sessions DROP COLUMN IF EXISTS expires_at, DROP COLUMN IF EXISTS ttl_strategy, DROP COLUMN IF EXISTS ttl_minutes`,
    );
  }
}
