import { MigrationInterface, QueryRunner } from 'typeorm';

export class Init1763870000000 implements MigrationInterface {
  name = 'Init1763870000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sessions (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL DEFAULT 'default',
        agent text NOT NULL,
        summary text,
        metadata jsonb NOT NULL DEFAULT '{}',
        active_run_id uuid,
        lease_expires_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX idx_sessions_tenant ON sessions (tenant_id, updated_at DESC)`);
    await q.query(`
      CREATE TABLE messages (
        seq bigserial PRIMARY KEY,
        session_id uuid NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        run_id uuid,
        role text NOT NULL CHECK (role IN ('user', 'assistant')),
        content text NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX idx_messages_session ON messages (session_id, seq)`);
    await q.query(`
      CREATE TABLE runs (
        id uuid PRIMARY KEY,
        session_id uuid NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        tenant_id text NOT NULL DEFAULT 'default',
        agent text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('sync', 'async')),
        status text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
        input jsonb NOT NULL,
        result jsonb,
        error jsonb,
        trace jsonb,
        progress jsonb,
        llm_calls int NOT NULL DEFAULT 0,
        prompt_tokens int NOT NULL DEFAULT 0,
        completion_tokens int NOT NULL DEFAULT 0,
        attempts int NOT NULL DEFAULT 0,
        cancel_requested boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        finished_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX idx_runs_session ON runs (session_id, created_at)`);
    await q.query(`CREATE INDEX idx_runs_status ON runs (status) WHERE status IN ('queued', 'running')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE runs`);
    await q.query(`DROP TABLE messages`);
    await q.query(`DROP TABLE sessions`);
  }
}
