import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { type Job, Worker } from 'bullmq';

import { AppConfig } from '../config/app-config';
import { redisOptions } from '../config/redis-options';
import { type RunJobData, RUNS_QUEUE } from './run.job';
import { RunExecutor } from './run-executor.service';

/**
 * The BullMQ worker: thin, and safe to run twice (an ended run returns its stored result). Built here rather
 * than with `@Processor` because its concurrency and lock settings come from configuration. A worker that dies
 * stops renewing its job lock; after RUN_LOCK_MS another worker takes the job over and the run resumes from its
 * last checkpoint.
 */
@Injectable()
export class RunProcessor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RunProcessor.name);
  private worker?: Worker<RunJobData>;

  constructor(
    private readonly executor: RunExecutor,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.worker = new Worker<RunJobData>(RUNS_QUEUE, (job) => this.process(job), {
      connection: redisOptions(this.config.redisUrl!),
      prefix: this.config.queuePrefix,
      concurrency: this.config.workerConcurrency,
      lockDuration: this.config.runLockMs,
      stalledInterval: this.config.runStalledCheckMs,
      maxStalledCount: 2,
    });
    this.worker.on('error', (err) => this.logger.warn({ msg: 'worker error', err: err.message }));
  }

  /** Lets running jobs finish before the process exits. */
  async onApplicationShutdown(): Promise<void> {
    await this.worker?.close();
  }

  async process(job: Job<RunJobData>) {
    const result = await this.executor.execute(job.data.runId);
    return { status: result.error ? 'failed' : 'completed' };
  }
}
