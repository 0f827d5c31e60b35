import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The LangGraph Server API (src/langgraph-api): a thread created there is a session without an agent until its
 * first run, so `sessions.agent` becomes nullable, and the first run recorded on such a session gives it that
 * run's agent (a trigger, so every path that records runs — REST v1, queued jobs, LangGraph runs — adopts it
 * the same way). User-created assistants live in `lg_assistants`, every version of them in
 * `lg_assistant_versions`; both carry the tenant in their key.
 */
export class LangGraphApi1763980000000 implements MigrationInterface {
  name = 'LangGraphApi1763980000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sessions ALTER COLUMN agent DROP NOT NULL`);
    await q.query(`
      CREATE OR REPLACE FUNCTION sessions_adopt_agent() RETURNS trigger AS $$
      BEGIN
        UPDATE sessions SET agent = NEW.agent, updated_at = now()
         WHERE tenant_id = NEW.tenant_id AND id = NEW.session_id AND agent IS NULL;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`);
    await q.query(`DROP TRIGGER IF EXISTS runs_adopt_agent ON runs`);
    await q.query(`CREATE TRIGGER runs_adopt_agent AFTER INSERT ON runs FOR EACH ROW EXECUTE FUNCTION sessions_adopt_agent()`);
    await q.query(`CREATE INDEX IF NOT EXISTS idx_sessions_tenant_created ON sessions (tenant_id, created_at)`);
    await q.query(`
      CREATE TABLE IF NOT EXISTS lg_assistants (
        tenant_id text NOT NULL,
        assistant_id text NOT NULL,
        graph_id text NOT NULL,
        name text NOT NULL,
        description text,
        config jsonb NOT NULL DEFAULT '{}',
        context jsonb NOT NULL DEFAULT '{}',
        metadata jsonb NOT NULL DEFAULT '{}',
        version int NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, assistant_id),
        CONSTRAINT lg_assistants_id_format CHECK (assistant_id ~ '^[A-Za-z0-9._:-]{1,128}$'))`);
    await q.query(`
      CREATE TABLE IF NOT EXISTS lg_assistant_versions (
        tenant_id text NOT NULL,
        assistant_id text NOT NULL,
        version int NOT NULL,
        graph_id text NOT NULL,
        name text NOT NULL,
        description text,
        config jsonb NOT NULL DEFAULT '{}',
        context jsonb NOT NULL DEFAULT '{}',
        metadata jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, assistant_id, version),
        FOREIGN KEY (tenant_id, assistant_id) REFERENCES lg_assistants (tenant_id, assistant_id) ON DELETE CASCADE)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS lg_assistant_versions`);
    await q.query(`DROP TABLE IF EXISTS lg_assistants`);
    await q.query(`DROP INDEX IF EXISTS idx_sessions_tenant_created`);
    await q.query(`DROP TRIGGER IF EXISTS runs_adopt_agent ON runs`);
    await q.query(`DROP FUNCTION IF EXISTS sessions_adopt_agent()`);
    // a thread that never ran has no agent: it has no messages or runs either
    await q.query(`DELETE FROM sessions WHERE agent IS NULL`);
    await q.query(`ALTER TABLE sessions ALTER COLUMN agent SET NOT NULL`);
  }
}
