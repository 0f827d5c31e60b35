import { checkpointThreadSql, latestCheckpointColumns, latestCheckpointSql } from '../../database/checkpoint-tables';
import { awaitingApproval, due, firstInLine, leaseFree, notExpired, startable, takeLease, unfinished } from './run-rules';
import { taintColumns } from './taint-row';

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
 * inserted at all unless the session is idle. `reads`: the statement also returns what a started run reads of
 * its thread first — its latest checkpoint (`cp_…`, latestCheckpointColumns) and its taint record (`taint_…`,
 * taintColumns) — read in the snapshot in which the lease was found free, so every earlier run's writes are in it.
 */
export function startedInSessionSql(exclusive: boolean, reads = false): string {
  const started = startedSql('$4', '(SELECT 1) AS one', exclusive ? `WHERE ${SESSION_IDLE}` : '');
  if (!reads) return `WITH ${started.lease} ${started.insert}`;
  return `WITH ${started.lease}, started AS (${started.insert}) SELECT started.*, ${readAlong('started')}`;
}

/**
 * startedInSessionSql with reads, after the checks a turn's session must pass — decided in the same statement
 * (one snapshot): the session exists for the tenant and has not expired; no run of it waits for a tool decision;
 * with $12, none is scheduled for later; the agent (the request's $4, else the session's, else the default $10) is
 * one of $11 and the session's own if it has one. One row whatever happened, with the session's facts (`s_…`)
 * to tell a refusal apart; none when there is no such session. Nothing is written unless every check passes.
 */
export function startedAfterChecksSql(): string {
  const started = startedSql('ok.agent', 'ok', '');
  return `WITH s AS (
       SELECT s.id, s.agent, COALESCE($4::text, s.agent, $10::text) AS resolved,
              (SELECT r.id FROM runs r WHERE r.session_id = s.id AND r.tenant_id = s.tenant_id AND ${awaitingApproval('r')} LIMIT 1) AS waiting_run_id,
              (SELECT r.id FROM runs r WHERE r.session_id = s.id AND r.tenant_id = s.tenant_id AND ${startable('r')} AND NOT ${due('r')} LIMIT 1) AS scheduled_run_id
         FROM sessions s WHERE s.id = $2 AND s.tenant_id = $3 AND ${notExpired('s')}
     ), ok AS (
       SELECT resolved AS agent FROM s
        WHERE waiting_run_id IS NULL AND (NOT $12::boolean OR scheduled_run_id IS NULL)
          AND (s.agent IS NULL OR s.agent = resolved) AND resolved = ANY($11::text[])
     ), ${started.lease}, started AS (${started.insert})
     SELECT s.agent AS s_agent, s.resolved AS s_resolved, s.waiting_run_id AS s_waiting_run_id, s.scheduled_run_id AS s_scheduled_run_id,
            started.*, ${readAlong('s LEFT JOIN started ON true')}`;
}

/** The session's lease CTE and the run's insert, its agent `agent`, one row per row of `from` (after `where`). */
function startedSql(agent: string, from: string, where: string): { lease: string; insert: string } {
  const lease = `lease AS (
       UPDATE sessions s SET ${takeLease('$1', '$8')},
              metadata = CASE WHEN $9::jsonb IS NULL THEN s.metadata ELSE COALESCE(s.metadata, '{}'::jsonb) || $9::jsonb END,
              agent = COALESCE(s.agent, ${agent})
         FROM ${from}
        WHERE s.id = $2 AND s.tenant_id = $3 AND ${leaseFree('s')} AND ${SESSION_IDLE}
       RETURNING s.id
     )`;
  const insert = `INSERT INTO runs (id, session_id, tenant_id, agent, mode, input, owner, status, attempts, started_at)
     SELECT $1, $2, $3, ${agent}, $5, $6, $7::text,
            CASE WHEN l.id IS NULL THEN 'queued' ELSE 'running' END, CASE WHEN l.id IS NULL THEN 0 ELSE 1 END,
            CASE WHEN l.id IS NULL THEN NULL ELSE now() END
       FROM ${from} LEFT JOIN lease l ON true
      ${where}
     RETURNING *`;
  return { lease, insert };
}

/**
 * What a started run reads of its thread first — its latest checkpoint (`cp_…`) and taint record (`taint_…`) — as
 * a select list and joins after FROM `from`, joined to the `started` row (a CTE) when it holds the lease.
 */
export const readAlong = (from: string) => `${latestCheckpointColumns('cp')}, ${taintColumns('t')}
       FROM ${from}
       LEFT JOIN LATERAL (${latestCheckpointSql(checkpointThreadSql('started.tenant_id', 'started.session_id'))}) cp ON started.status = 'running'
       LEFT JOIN thread_taint t ON started.status = 'running' AND t.tenant_id = started.tenant_id AND t.session_id = started.session_id`;

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
