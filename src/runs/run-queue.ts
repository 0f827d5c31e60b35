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
  /** The queue's view of a run's job, for the reconciler: `missing` when the queue has no job for it. */
  abstract jobState(runId: string): Promise<'missing' | 'pending' | 'failed' | 'completed'>;
}
