import type { RunEntity } from '../database/entities';
import type { ThreadOpening } from '../runs/store/run-store';

/**
 * What a caller already holds of a run it hands to the driver, so nothing is read or leased twice: its id only;
 * the row it has just accepted (`queued`, or an idempotent repeat's); or that row accepted and started in one
 * statement — `running`, holding its session's lease — with its thread known to be new (no checkpoint to read),
 * created by that same statement (nothing at all to read: no checkpoint, no taint record), or neither — then
 * perhaps with what the run reads of it first, read by the same statement (`opening`, RunStore.startInSession).
 */
export type LeasedThread = 'created' | 'new' | 'existing';
export type RunHandle = { runId: string } | { accepted: RunEntity } | { leased: RunEntity; thread: LeasedThread; opening?: ThreadOpening };

/** The run id a handle stands for. */
export function runIdOf(handle: RunHandle): string {
  return 'runId' in handle ? handle.runId : 'accepted' in handle ? handle.accepted.id : handle.leased.id;
}

/** A row just accepted: leased when it was started by the same statement (RunStore.createStarted). */
export function handleOf(
  run: RunEntity,
  thread: LeasedThread = 'existing',
  opening?: ThreadOpening,
): Exclude<RunHandle, { runId: string }> {
  if (run.status !== 'running') return { accepted: run };
  return opening ? { leased: run, thread, opening } : { leased: run, thread };
}
