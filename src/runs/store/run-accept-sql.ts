import { firstInLine, leaseFree, takeLease, unfinished } from './run-rules';

/**
 * The statements that write a new run into an existing session (PgRunStore), written once so the plain and the
 * exclusive (multitask `reject`) acceptance cannot drift apart. Parameters, in every statement: $1 run id,
 * $2 session id, $3 tenant, $4 agent, $5 mode, $6 input, $7 owner; the started forms add $8 lease ms and
 * $9 the metadata merged into the session with the lease.
 */

/** No run of the session ($2, $3) is unfinished: checked after the session's row lock, it sees every committed run. */
const SESSION_IDLE = firstInLine({ id: '$2', tenant: '$3' });

/**
 * The run inserted `running` (attempt 1) holding the session's lease when the lease is free and no run of the
 * session is unfinished, `queued` otherwise; a session without agent adopts the run's. `exclusive`: nothing is
 * inserted at all unless the session is idle.
 */
export function startedInSessionSql(exclusive: boolean): string {
  return `WITH lease AS (
       UPDATE sessions s SET ${takeLease('$1', '$8')},
              metadata = CASE WHEN $9::jsonb IS NULL THEN s.metadata ELSE COALESCE(s.metadata, '{}'::jsonb) || $9::jsonb END,
              agent = COALESCE(s.agent, $4)
        WHERE s.id = $2 AND s.tenant_id = $3 AND ${leaseFree('s')} AND ${SESSION_IDLE}
       RETURNING s.id
     )
     INSERT INTO runs (id, session_id, tenant_id, agent, mode, input, owner, status, attempts, started_at)
     SELECT $1, $2, $3, $4, $5, $6, $7::text,
            CASE WHEN l.id IS NULL THEN 'queued' ELSE 'running' END, CASE WHEN l.id IS NULL THEN 0 ELSE 1 END,
            CASE WHEN l.id IS NULL THEN NULL ELSE now() END
       FROM (SELECT 1) AS one LEFT JOIN lease l ON true
      ${exclusive ? `WHERE ${SESSION_IDLE}` : ''}
     RETURNING *`;
}

/** The run inserted `queued` only when no run of the session is unfinished (the exclusive acceptance's queued form). */
export const QUEUED_IF_IDLE_SQL = `INSERT INTO runs (id, session_id, tenant_id, agent, mode, input, owner, status, attempts)
     SELECT $1::uuid, $2, $3, $4, $5, $6::jsonb, $7::text, 'queued', 0
      WHERE ${SESSION_IDLE}
     RETURNING *`;

/** Locks the session's row for the rest of the transaction; no row: the session is gone. */
export const LOCK_SESSION_SQL = `SELECT id FROM sessions WHERE id = $1 AND tenant_id = $2 FOR UPDATE`;

/** The run inserted `queued` unconditionally (the superseding acceptance's insert, after the stop below). */
export const QUEUED_SQL = `INSERT INTO runs (id, session_id, tenant_id, agent, mode, input, owner, status, attempts)
     VALUES ($1::uuid, $2, $3, $4, $5, $6::jsonb, $7::text, 'queued', 0)
     RETURNING *`;

/**
 * Multitask `interrupt` / `rollback`: every unfinished run of the session ($1, $2) stopped in one statement —
 * a queued one or one paused for an approval is cancelled at once (it holds no lease), a running one is flagged
 * for its worker to stop. Returns each run with what was done to it.
 */
export const STOP_UNFINISHED_SQL = `WITH victims AS (
       SELECT r.id, r.status FROM runs r WHERE r.session_id = $1 AND r.tenant_id = $2 AND ${unfinished('r')} FOR UPDATE
     ), cancelled AS (
       UPDATE runs SET status = 'cancelled', cancel_requested = true, finished_at = now(), updated_at = now(),
              error = '{"code":"CANCELLED","message":"cancelled by a newer run (multitask)"}'::jsonb
        WHERE id IN (SELECT id FROM victims WHERE status <> 'running') RETURNING id
     ), flagged AS (
       UPDATE runs SET cancel_requested = true, updated_at = now() WHERE id IN (SELECT id FROM victims WHERE status = 'running') RETURNING id
     )
     SELECT id, 'cancelled' AS outcome FROM cancelled UNION ALL SELECT id, 'flagged' AS outcome FROM flagged`;
