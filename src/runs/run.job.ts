import type { JobsOptions } from 'bullmq';

import type { QueuedRunContext } from '../observability/queued-run-context';

export const RUNS_QUEUE = 'runs';
export const RUN_JOB = 'run';

/** A queued run: the id of its row (everything else is in Postgres). */
export interface RunJobData {
  runId: string;
  /** the enqueuing request's id and trace context, continued by the worker */
  context?: QueuedRunContext;
}

/**
 * Default job options, set in one place: retried on infrastructure failure, kept for inspection when failed.
 * `attempts` is replaced by RUN_MAX_ATTEMPTS where the job is added.
 */
export const RUN_JOB_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { count: 1000 },
  removeOnFail: { count: 5000 },
};
