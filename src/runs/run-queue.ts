/** Whether this process runs a worker (RUN_WORKER; always in `worker.ts`): provided by RunsModule.register. */
export const RUN_WORKER = Symbol('RUN_WORKER');

export type JobState = 'missing' | 'pending' | 'failed' | 'completed';

/**
 * What executing a queued run came to, as the run driver reports it to the queue: `ended` (a final state is
 * recorded, or the run paused for an approval), `parked` (not started or handed back: its session is busy, it
 * is not due yet, the process is shutting down, the database is out — try again after `retryInMs` (the
 * queue's slow safety net when absent) without counting an attempt or holding a slot — or as soon as the run
 * `wakeOn` ends (the turn ahead of it on its session), `gone` (its session was deleted, or another worker took
 * the run over: nothing to run here). `paused`: it ended waiting for a tool approval (a decision that came while
 * its execution was winding down queues it again once that is over).
 */
export type RunOutcome = { kind: 'ended'; paused?: boolean } | { kind: 'parked'; retryInMs?: number; wakeOn?: string } | { kind: 'gone' };

export interface EnqueueOptions {
  delayMs?: number;
  wakeOn?: string;
}

/** The run driver, as the queue's worker loop calls it: the queue never knows what executing a run means. */
export interface RunHandler {
  execute(runId: string): Promise<RunOutcome>;
  /** the queue gave up on the run (its job failed every attempt, or crashed every worker): end it */
  abandon(runId: string, reason: string): Promise<void>;
}

/**
 * The queue port: where accepted runs wait for a worker — BullMQ on Redis, or this process when no Redis is
 * configured. The worker loop lives in the driver (`work`); the run driver hands it a RunHandler.
 */
export abstract class RunQueue {
  abstract readonly kind: 'bullmq' | 'inline';
  /**
   * `delayMs`: the run's job is not taken before then (`after_seconds`, a parked run); `wakeOn`: unless that run
   * ends first (a parked run's wake-up). A run enqueued while this process executes it runs again after that.
   */
  abstract enqueue(runId: string, opts?: EnqueueOptions): Promise<void>;
  /** Drop a run's job: one that has not started (after cancellation), or a finished one, so the run can be enqueued again under its id. */
  abstract cancel(runId: string): Promise<void>;
  /** Start this process's worker loop: runs taken from the queue go to `handler` (at most WORKER_CONCURRENCY at once). */
  abstract work(handler: RunHandler): void;
  /** Stop taking runs and wait for the ones being executed here (their handler sees the shutdown and hands them back). */
  abstract close(): Promise<void>;
  /** Runs this process is executing or holding right now (for recovery: they are not orphans). */
  abstract isLocal(runId: string): boolean;
  abstract ready(): Promise<boolean>;
  /** A parked run (waiting for its session) should try again now. */
  abstract wake(runId: string): Promise<void>;
  /** Whether any run waits in the queue's delay (parked for its session, or not due yet): if none, there is nobody to wake. */
  abstract anyParked(): Promise<boolean>;
  /** The queue's view of runs' jobs, for the reconciler: `missing` when the queue has no job for a run. */
  abstract jobStates(runIds: string[]): Promise<Map<string, JobState>>;
}
