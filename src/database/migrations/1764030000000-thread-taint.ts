import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Taint belongs to the thread (tools/thread-taint.ts): once untrusted text entered a turn, the thread's later turns
 * and its copies start tainted. One row per tainted thread, beside its session (deleted with it): where the text
 * came from, a fixed-size digest of its character runs for the network-argument check (128 KiB at most, no text),
 * whether text entered that the guard did not see, and when and by which run the thread was first tainted.
 */
export class ThreadTaint1764030000000 implements MigrationInterface {
  name = 'ThreadTaint1764030000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE IF NOT EXISTS thread_taint (
         tenant_id text NOT NULL,
         session_id text NOT NULL,
         sources text[] NOT NULL DEFAULT '{}',
         digest bytea,
         opaque boolean NOT NULL DEFAULT false,
         run_id uuid,
         tainted_at timestamptz NOT NULL DEFAULT now(),
         updated_at timestamptz NOT NULL DEFAULT now(),
         PRIMARY KEY (tenant_id, session_id),
         CONSTRAINT thread_taint_session_fk FOREIGN KEY (tenant_id, session_id) REFERENCES sessions (tenant_id, id) ON DELETE CASCADE
       )`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS thread_taint`);
  }
}
