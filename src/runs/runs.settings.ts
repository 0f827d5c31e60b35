import { z } from 'zod';

import { bool, defineSettings, int, type SettingsOf, variable } from '../config/settings';

/** Run execution: the queue, workers, time and budget limits, durability. */
export const runsSettings = defineSettings({
  module: 'runs',
  variables: {
    QUEUE_PREFIX: variable(z.string().default('agents'), 'BullMQ key prefix'),
    RUN_WORKER: variable(bool(true), 'whether this API process also executes queued runs'),
    WORKER_CONCURRENCY: variable(int(8, 1), 'runs executed at once per process'),
    LOCAL_RUN_CONCURRENCY: variable(
      int(32, 0),
      'LangGraph API `wait`/`stream` runs (their client is waiting) executed at once by the process that accepted them, without a queue round trip, besides the queued ones; beyond it they are queued; `0` = always queued',
    ),
    RUN_TIMEOUT_MS: variable(int(120_000, 100), "a run's time limit (then `RUN_TIMEOUT`)"),
    RUN_LOCK_MS: variable(
      int(5_000, 500),
      'BullMQ job lock and session lease (both renewed every quarter of it while a turn runs, so both lapse at most this long after a crash): a crashed worker\'s run is started again by another worker within `RUN_LOCK_MS` + `RUN_STALLED_CHECK_MS` (20 kills at the defaults: 4.3–5.5 s, median 5.0 s; see "Durability")',
    ),
    RUN_STALLED_CHECK_MS: variable(
      int(2_500, 200),
      "how long a crashed worker's job may wait, once its lock has lapsed, for BullMQ to find it stalled; BullMQ checks every quarter of it (so at most half of it passes before one finds the job), leaving the rest for the next worker to start the run (see `RUN_LOCK_MS`)",
    ),
    RUN_MAX_MODEL_CALLS: variable(
      int(50),
      'per-run budget: model calls that reach the endpoint (cache hits are free); `0` = unlimited (then `BUDGET_EXCEEDED`; wall time is `RUN_TIMEOUT_MS`)',
    ),
    RUN_MAX_MODEL_TOKENS: variable(int(200_000), 'per-run budget: prompt + completion tokens the endpoint reports; `0` = unlimited'),
    RUN_MAX_TOOL_CALLS: variable(int(50), 'per-run budget: tool executions; `0` = unlimited'),
    RUN_MAX_ATTEMPTS: variable(int(3, 1), 'starts of a run (crashes included) before it ends `failed` with `RUN_ATTEMPTS_EXHAUSTED`'),
    RUN_RECONCILE_MS: variable(
      int(5_000, 100),
      'how often a worker re-enqueues accepted runs that have no job (Redis flushed or restarted)',
    ),
    RUN_SHUTDOWN_GRACE_MS: variable(
      int(10_000, 0),
      'SIGTERM: running turns get this long to finish, then are handed back at their last checkpoint',
    ),
    RUN_CHECKPOINTS: variable(
      z.enum(['step', 'agent']).default('step'),
      "`step`: queued runs checkpoint after every step (a crash resumes mid-turn); `agent`: each agent's own choice",
    ),
    THREAD_TTL_MINUTES: variable(
      z.coerce.number().positive().finite().optional(),
      'minutes (fractions allowed) after its last activity a thread or REST v1 session without its own `ttl` expires; unset = kept until deleted. Not read when langgraph.json has `checkpointer.ttl` (it decides then; see docs/retention.md)',
      'unset',
    ),
    THREAD_TTL_STRATEGY: variable(
      z.enum(['delete', 'keep_latest']).default('delete'),
      'what expiry does to a thread under the default TTL: `delete` it with its checkpoints and runs, or `keep_latest` (its latest checkpoint only); langgraph.json `checkpointer.ttl.strategy` instead when it has `checkpointer.ttl`',
    ),
    THREAD_TTL_SWEEP_MINUTES: variable(
      z.coerce.number().positive().finite().default(60),
      'how often (minutes) the retention sweeper looks for expired threads (one process of the cluster at a time); langgraph.json `checkpointer.ttl.sweep_interval_minutes` instead when it has `checkpointer.ttl`',
    ),
    DB_WRITE_RETRIES: variable(
      int(8, 0),
      "retries (100 ms doubling, at most 5 s apart) of a run's database writes after a connection failure",
    ),
  },
  build: (e) => ({
    queuePrefix: e.QUEUE_PREFIX,
    /** whether this process consumes runs (the API's in-process worker; `worker.ts` always does) */
    runWorker: e.RUN_WORKER,
    workerConcurrency: e.WORKER_CONCURRENCY,
    /** LangGraph `wait`/`stream` runs executed at once by the accepting process (LocalRuns); 0 = always queued */
    localRunConcurrency: e.LOCAL_RUN_CONCURRENCY,
    runTimeoutMs: e.RUN_TIMEOUT_MS,
    /** BullMQ job lock and session lease: a crashed worker's run starts again elsewhere within this + runStalledCheckMs */
    runLockMs: e.RUN_LOCK_MS,
    /** the bound's second part: BullMQ checks for stalled jobs every quarter of it (BullRunQueue `stalledCheckEvery`) */
    runStalledCheckMs: e.RUN_STALLED_CHECK_MS,
    /** per-run budgets (0 = unlimited): model calls reaching the endpoint, model tokens, tool calls (llm/run-budget's BudgetLimits) */
    runBudget: { modelCalls: e.RUN_MAX_MODEL_CALLS, modelTokens: e.RUN_MAX_MODEL_TOKENS, toolCalls: e.RUN_MAX_TOOL_CALLS },
    /** durability: crash recovery, shutdown, reconciliation (see README "Durability") */
    /** thread retention from the environment (langgraph.json's `checkpointer.ttl` wins: runs/store/thread-retention.ts) */
    threadTtl: { defaultMinutes: e.THREAD_TTL_MINUTES, strategy: e.THREAD_TTL_STRATEGY, sweepMinutes: e.THREAD_TTL_SWEEP_MINUTES },
    durability: {
      /** a run is started at most this often (crashes included), then ends `failed` */
      maxAttempts: e.RUN_MAX_ATTEMPTS,
      /** how often a worker re-enqueues accepted runs that have no job (Redis flushed or restarted) */
      reconcileMs: e.RUN_RECONCILE_MS,
      /** SIGTERM: running turns get this long to finish, then are handed back at their last checkpoint */
      shutdownGraceMs: e.RUN_SHUTDOWN_GRACE_MS,
      /** `step`: queued runs checkpoint after every step (resume mid-turn); `agent`: each agent's own choice */
      checkpoints: e.RUN_CHECKPOINTS,
      /** a failed database write is retried this many times with backoff (connection resets, restarts) */
      dbWriteRetries: e.DB_WRITE_RETRIES,
    },
  }),
});

declare module '../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: this slice's fields on AppConfig
  interface AppConfig extends SettingsOf<typeof runsSettings> {}
}
