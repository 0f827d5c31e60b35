import { FINAL_STATUSES, hasEnded, type RunStatus } from '../../database/entities';

/**
 * The rules about runs and sessions — when a run has ended, who holds a session's lease — each written once here,
 * as a SQL fragment for the run store's statements and as a predicate for code that holds the rows (the in-memory
 * store, the services). Nothing else restates them: run-rules.spec.ts greps `src/` for restatements. The status
 * list of a final run is FINAL_STATUSES and the TS "ended" predicate `hasEnded` (database/entities, so that every
 * layer may ask it); their SQL twins are built here from the same list.
 */
export { FINAL_STATUSES, hasEnded };

const sqlList = (statuses: readonly string[]) => statuses.map((s) => `'${s}'`).join(', ');

/** The run's status is final (completed, failed, cancelled): nothing more happens to it. */
export function finalStatus(run: string): string {
  return `${run}.status IN (${sqlList(FINAL_STATUSES)})`;
}

/** The run is queued or running: someone is, or should be, executing it. */
export function live(run: string): string {
  return `${run}.status IN ('queued', 'running')`;
}

/** The run is paused for a tool approval: `interrupted` without `finished_at` (a graph's own interrupt has one). */
export function awaitingApproval(run: string): string {
  return `(${run}.status = 'interrupted' AND ${run}.finished_at IS NULL)`;
}

/** A run that has ended (`hasEnded`): a final status, or `interrupted` by its graph (`finished_at` set). */
export function ended(run: string): string {
  return `(${finalStatus(run)} OR (${run}.status = 'interrupted' AND ${run}.finished_at IS NOT NULL))`;
}

/** A run that has not ended: queued, running, or paused for a tool approval (`interrupted`, not finished). */
export function unfinished(run: string): string {
  return `(${live(run)} OR ${awaitingApproval(run)})`;
}

/** The session's lease is held by someone (a run, or a state update) and has not lapsed. */
export function leaseHeld(session: string): string {
  return `(${session}.active_run_id IS NOT NULL AND ${session}.lease_expires_at > now())`;
}

/** Nobody holds the session's turn lease: none was taken, or its holder stopped renewing it (crashed worker). */
export function leaseFree(session: string): string {
  return `(${session}.active_run_id IS NULL OR ${session}.lease_expires_at IS NULL OR ${session}.lease_expires_at < now())`;
}

/**
 * The session has expired (its `expires_at`, last activity + TTL, has passed) with the `delete` strategy and no
 * lease holds it: it is gone for every reader from that moment, before the retention sweeper deletes its rows.
 */
export function expiredForDelete(session: string): string {
  return `(${session}.expires_at <= now() AND ${session}.ttl_strategy IS DISTINCT FROM 'keep_latest' AND NOT ${leaseHeld(session)})`;
}

/** The session is visible to readers: not expiredForDelete (a NULL `expires_at` never expires). */
export function notExpired(session: string): string {
  return `NOT COALESCE(${expiredForDelete(session)}, false)`;
}

/**
 * The retention sweeper may act on the session: expired (either strategy), no lease held, no run unfinished
 * (a queued run too: it would start on a deleted thread).
 */
export function sweepable(session: string): string {
  return `(${session}.expires_at <= now() AND ${leaseFree(session)} AND ${firstInLine({ id: `${session}.id`, tenant: `${session}.tenant_id` })})`;
}

/** `run` holds a live lease on its session. */
export function holdsLease(session: string, run: string): string {
  return `(${session}.active_run_id = ${run}.id AND ${session}.lease_expires_at > now())`;
}

/** When a lease taken or renewed now for `ms` milliseconds (a SQL expression) lapses. */
export function leaseEnd(ms: string): string {
  return `now() + (${ms} || ' milliseconds')::interval`;
}

/** The SET clause that gives the session's lease to `runId` for `ms` milliseconds (SQL expressions). */
export function takeLease(runId: string, ms: string): string {
  return `active_run_id = ${runId}, lease_expires_at = ${leaseEnd(ms)}, updated_at = now()`;
}

/** The SET clause that extends the lease by `ms` milliseconds from now (its holder's heartbeat). */
export function extendLease(ms: string): string {
  return `lease_expires_at = ${leaseEnd(ms)}`;
}

/** A run's end may free the session's lease: the lease is `run`'s, or nobody's. */
export function releasableBy(session: string, run: string): string {
  return `(${session}.active_run_id = ${run}.id OR ${session}.active_run_id IS NULL)`;
}

/** The SET clause that frees the session's lease. */
export const RELEASE_LEASE = 'active_run_id = NULL, lease_expires_at = NULL';

/** The milliseconds left of the session's lease (0 once lapsed), as an int. */
export function leaseRemainingMs(session: string): string {
  return `GREATEST(0, EXTRACT(EPOCH FROM (${session}.lease_expires_at - now())) * 1000)::int`;
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
  return `(${live(run)} AND NOT ${run}.cancel_requested)`;
}

/** The run is not due later (`start_at`, from `after_seconds`). */
export function due(run: string): string {
  return `COALESCE((${run}.input ->> 'start_at')::timestamptz, '-infinity') <= now()`;
}

// --- the same rules as predicates, for rows in hand ---

interface RunFacts {
  status: RunStatus;
  finishedAt: Date | null;
}
interface LeaseFacts {
  activeRunId: string | null;
  leaseExpiresAt: Date | null;
}

export function isFinalStatus(status: RunStatus): boolean {
  return FINAL_STATUSES.includes(status);
}

export function isLive(run: { status: RunStatus }): boolean {
  return run.status === 'queued' || run.status === 'running';
}

export function isAwaitingApproval(run: RunFacts): boolean {
  return run.status === 'interrupted' && run.finishedAt === null;
}

export function isUnfinished(run: RunFacts): boolean {
  return !hasEnded(run);
}

export function isStartable(run: { status: RunStatus; cancelRequested: boolean }): boolean {
  return isLive(run) && !run.cancelRequested;
}

export function isDue(run: { input: { start_at?: string } }, now: Date): boolean {
  return !run.input.start_at || Date.parse(run.input.start_at) <= now.getTime();
}

export function isLeaseFree(session: LeaseFacts, now: Date): boolean {
  return session.activeRunId === null || session.leaseExpiresAt === null || session.leaseExpiresAt < now;
}

export function holdsLeaseAt(session: LeaseFacts | undefined, runId: string, now: Date): boolean {
  return !!session && session.activeRunId === runId && !!session.leaseExpiresAt && session.leaseExpiresAt > now;
}

export function isReleasableBy(session: LeaseFacts, runId: string): boolean {
  return session.activeRunId === runId || session.activeRunId === null;
}
