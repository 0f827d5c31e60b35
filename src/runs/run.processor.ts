import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Job } from 'bullmq';
import { AppConfig } from '../config/app-config';
import { RunExecutor } from './run-executor.service';
import { RUNS_QUEUE, type RunJobData } from './run.job';

/**
 * The BullMQ worker: thin, and safe to run twice (an ended run returns its stored result).
 * Started after bootstrap with the configured concurrency; a stalled job (crashed worker) is taken over
 * by another worker and resumes from the run's last checkpoint.
 */
@Processor(RUNS_QUEUE, { autorun: false, lockDuration: 30_000, stalledInterval: 15_000, maxStalledCount: 2 })
export class RunProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(RunProcessor.name);

  constructor(
    private readonly executor: RunExecutor,
    private readonly config: AppConfig,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.workerConcurrency;
    void this.worker.run().catch((err: Error) => this.logger.error({ msg: 'worker stopped', err: err.message }));
  }

  async process(job: Job<RunJobData>) {
    const result = await this.executor.execute(job.data.runId);
    return { status: result.error ? 'failed' : 'completed' };
  }

  @OnWorkerEvent('error')
  onError(err: Error): void {
    this.logger.warn({ msg: 'worker error', err: err.message });
  }
}
