import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sessions belong to a tenant and may carry client-chosen ids: `sessions.id` becomes text (1–128 chars of
 * [A-Za-z0-9._:-]) and the key becomes (tenant_id, id), so two tenants may use the same id. Runs and
 * messages reference the session by (tenant_id, session_id). Existing checkpoint threads are renamed to
 * the tenant-scoped thread id (`tenant:session`, see auth/tenant.ts `threadIdOf`).
 */
export class TenantSessions1763920000000 implements MigrationInterface {
  name = 'TenantSessions1763920000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $$
      DECLARE r record;
      BEGIN
        FOR r IN SELECT conrelid::regclass::text AS tbl, conname FROM pg_constraint WHERE contype = 'f' AND confrelid = 'sessions'::regclass LOOP
          EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', r.tbl, r.conname);
        END LOOP;
      END $$`);
    await q.query(`ALTER TABLE sessions ALTER COLUMN id TYPE text USING id::text`);
    await q.query(`ALTER TABLE runs ALTER COLUMN session_id TYPE text USING session_id::text`);
    await q.query(`ALTER TABLE messages ALTER COLUMN session_id TYPE text USING session_id::text`);
    await q.query(`ALTER TABLE messages ADD COLUMN tenant_id text NOT NULL DEFAULT 'default'`);
    await q.query(`UPDATE messages m SET tenant_id = s.tenant_id FROM sessions s WHERE s.id = m.session_id AND m.tenant_id <> s.tenant_id`);
    await q.query(`UPDATE runs r SET tenant_id = s.tenant_id FROM sessions s WHERE s.id = r.session_id AND r.tenant_id <> s.tenant_id`);
    await q.query(`ALTER TABLE sessions DROP CONSTRAINT sessions_pkey`);
    await q.query(`ALTER TABLE sessions ADD CONSTRAINT sessions_pkey PRIMARY KEY (tenant_id, id)`);
    await q.query(`ALTER TABLE sessions ADD CONSTRAINT sessions_id_format CHECK (id ~ '^[A-Za-z0-9._:-]{1,128}$')`);
    await q.query(
      `ALTER TABLE runs ADD CONSTRAINT runs_session_fk FOREIGN KEY (tenant_id, session_id) REFERENCES sessions (tenant_id, id) ON DELETE CASCADE`,
    );
    await q.query(
      `ALTER TABLE messages ADD CONSTRAINT messages_session_fk FOREIGN KEY (tenant_id, session_id) REFERENCES sessions (tenant_id, id) ON DELETE CASCADE`,
    );
    await q.query(`DROP INDEX IF EXISTS idx_runs_session`);
    await q.query(`CREATE INDEX idx_runs_session ON runs (tenant_id, session_id, created_at)`);
    await q.query(`DROP INDEX IF EXISTS idx_messages_session`);
    await q.query(`CREATE INDEX idx_messages_session ON messages (tenant_id, session_id, seq)`);
    await q.query(`CREATE INDEX IF NOT EXISTS idx_runs_tenant ON runs (tenant_id, id)`);
    await q.query(`
      DO $$
      DECLARE t text;
      BEGIN
        FOREACH t IN ARRAY ARRAY['checkpoints', 'checkpoint_blobs', 'checkpoint_writes'] LOOP
          IF to_regclass('langgraph.' || t) IS NOT NULL THEN
            EXECUTE format('UPDATE langgraph.%I c SET thread_id = s.tenant_id || '':'' || s.id FROM sessions s WHERE c.thread_id = s.id', t);
          END IF;
        END LOOP;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $$
      DECLARE t text;
      BEGIN
        FOREACH t IN ARRAY ARRAY['checkpoints', 'checkpoint_blobs', 'checkpoint_writes'] LOOP
          IF to_regclass('langgraph.' || t) IS NOT NULL THEN
            EXECUTE format('UPDATE langgraph.%I c SET thread_id = s.id FROM sessions s WHERE c.thread_id = s.tenant_id || '':'' || s.id', t);
          END IF;
        END LOOP;
      END $$`);
    await q.query(`ALTER TABLE messages DROP CONSTRAINT messages_session_fk`);
    await q.query(`ALTER TABLE runs DROP CONSTRAINT runs_session_fk`);
    await q.query(`ALTER TABLE sessions DROP CONSTRAINT sessions_id_format`);
    await q.query(`ALTER TABLE sessions DROP CONSTRAINT sessions_pkey`);
    // only server-issued (UUID) sessions fit the old schema
    await q.query(`DELETE FROM sessions WHERE id !~ '^[0-9a-fA-F-]{36}$'`);
    await q.query(`ALTER TABLE sessions ALTER COLUMN id TYPE uuid USING id::uuid`);
    await q.query(`ALTER TABLE sessions ADD CONSTRAINT sessions_pkey PRIMARY KEY (id)`);
    await q.query(`DELETE FROM runs r WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id::text = r.session_id)`);
    await q.query(`DELETE FROM messages m WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id::text = m.session_id)`);
    await q.query(`ALTER TABLE runs ALTER COLUMN session_id TYPE uuid USING session_id::uuid`);
    await q.query(`ALTER TABLE messages ALTER COLUMN session_id TYPE uuid USING session_id::uuid`);
    await q.query(`ALTER TABLE messages DROP COLUMN tenant_id`);
    await q.query(`ALTER TABLE runs ADD FOREIGN KEY (session_id) REFERENCES sessions(id) ON DELETE CASCADE`);
    await q.query(`ALTER TABLE messages ADD FOREIGN KEY (session_id) REFERENCES sessions(id) ON DELETE CASCADE`);
    await q.query(`DROP INDEX IF EXISTS idx_runs_tenant`);
  }
}
