export type JobState = 'missing' | 'pending' | 'failed' | 'completed';

/** Where accepted async runs go: BullMQ on Redis, or this process when no Redis is configured. */
export abstract class RunQueue {
  abstract readonly kind: 'bullmq' | 'inline';
  /** `delayMs`: the run's job is not taken before then (`after_seconds`; the executor checks it too). */
  abstract enqueue(runId: string, opts?: { delayMs?: number }): Promise<void>;
  /** Drop a run that has not started (after cancellation). */
  abstract remove(runId: string): Promise<void>;
  /** Runs this process is executing right now (for recovery: they are not orphans). */
  abstract isLocal(runId: string): boolean;
  abstract ready(): Promise<boolean>;
  /** A parked run (waiting for its session) should try again now. */
  abstract wake(runId: string): Promise<void>;
  /** Whether any run waits in the queue's delay (parked for its session, or not due yet): if none, there is nobody to wake. */
  abstract anyParked(): Promise<boolean>;
  /** The queue's view of runs' jobs, for the reconciler: `missing` when the queue has no job for a run. */
  abstract jobStates(runIds: string[]): Promise<Map<string, JobState>>;
}
