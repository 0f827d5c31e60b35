/**
 * The rules about runs and sessions, each written once as a SQL predicate. Every statement of the run store
 * that decides on them uses these; nothing else in the service restates them.
 */

/** A run that has not ended: queued, running, or paused for a tool approval (`interrupted`, not finished). */
export function unfinished(run: string): string {
  return `(${run}.status IN ('queued', 'running') OR (${run}.status = 'interrupted' AND ${run}.finished_at IS NULL))`;
}

/** Nobody holds the session's turn lease: none was taken, or its holder stopped renewing it (crashed worker). */
export function leaseFree(session: string): string {
  return `(${session}.active_run_id IS NULL OR ${session}.lease_expires_at IS NULL OR ${session}.lease_expires_at < now())`;
}

/** `run` holds a live lease on its session. */
export function holdsLease(session: string, run: string): string {
  return `(${session}.active_run_id = ${run}.id AND ${session}.lease_expires_at > now())`;
}

/** The SET clause that gives the session's lease to `runId` for `ms` milliseconds (SQL expressions). */
export function takeLease(runId: string, ms: string): string {
  return `active_run_id = ${runId}, lease_expires_at = now() + (${ms} || ' milliseconds')::interval, updated_at = now()`;
}

/**
 * Turns of a session run in the order they were accepted: no run of the session accepted before `me` is
 * unfinished. Without `me` (a run not inserted yet, so every other run is older): no run is unfinished.
 */
export function firstInLine(session: { id: string; tenant: string }, me?: string): string {
  const older = me ? ` AND r.id <> ${me}.id AND (r.created_at, r.id) < (${me}.created_at, ${me}.id)` : '';
  return `NOT EXISTS (SELECT 1 FROM runs r WHERE r.session_id = ${session.id} AND r.tenant_id = ${session.tenant} AND ${unfinished('r')}${older})`;
}

/** The run may (still) take its session: not ended, not cancelled. */
export function startable(run: string): string {
  return `(${run}.status IN ('queued', 'running') AND NOT ${run}.cancel_requested)`;
}

/** The run is not due later (`start_at`, from `after_seconds`). */
export function due(run: string): string {
  return `COALESCE((${run}.input ->> 'start_at')::timestamptz, '-infinity') <= now()`;
}
