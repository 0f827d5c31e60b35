import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { type Job, Queue, Worker } from 'bullmq';

import { AppConfig } from '../../config/app-config';
import { redisOptions } from '../../config/redis-options';
import { CLOSE_MARGIN_MS, closeWithin } from '../../runs/bounded-close';
import { CronRunner } from './cron-runner.service';
import { CronScheduler } from './cron-scheduler';
import { type CronRow, CronsRepository } from './crons.repository';

export const CRONS_QUEUE = 'crons';
const CRON_JOB = 'cron';

export interface CronJobData {
  tenantId: string;
  cronId: string;
}

/**
 * Crons on BullMQ job schedulers (queue `crons` under QUEUE_PREFIX): one scheduler per cron, its id the cron id,
 * so each tick is one job taken by one process however many run, and the schedule survives restarts in Redis.
 * Every API process consumes the queue (a tick only accepts and queues a run). At start-up a cron whose
 * scheduler is missing (Redis lost its data) is scheduled again.
 */
@Injectable()
export class BullCronScheduler extends CronScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly kind = 'bullmq' as const;
  private readonly logger = new Logger(BullCronScheduler.name);
  private readonly queue: Queue<CronJobData>;
  private worker?: Worker<CronJobData>;

  constructor(
    private readonly config: AppConfig,
    private readonly runner: CronRunner,
    private readonly crons: CronsRepository,
  ) {
    super();
    this.queue = new Queue<CronJobData>(CRONS_QUEUE, { connection: redisOptions(config), prefix: config.queuePrefix });
    // without a listener BullMQ prints every reconnect error of a Redis outage or failover to stderr
    this.queue.on('error', (err) => this.logger.warn({ msg: 'cron queue error', err: err.message }));
  }

  async onApplicationBootstrap(): Promise<void> {
    this.worker = new Worker<CronJobData>(CRONS_QUEUE, (job) => this.tick(job), {
      connection: redisOptions(this.config),
      prefix: this.config.queuePrefix,
      concurrency: 4,
    });
    this.worker.on('error', (err) => this.logger.warn({ msg: 'cron worker error', err: err.message }));
    for (const cron of await this.crons.allEnabled()) {
      if (!(await this.queue.getJobScheduler(cron.cronId))) await this.schedule(cron);
    }
  }

  /**
   * Closes the worker (its ticks only accept and queue a run) and the queue, each bounded like the run worker's
   * close (BullRunQueue.close): a Redis that stops answering cannot hang a shutdown.
   */
  async onApplicationShutdown(): Promise<void> {
    const waitMs = this.config.durability.shutdownGraceMs + CLOSE_MARGIN_MS;
    const late = (what: string) => (waitedMs: number) =>
      this.logger.warn({ msg: `cron ${what} not closed in time: its Redis clients are disconnected`, waited_ms: waitedMs });
    if (this.worker) await closeWithin(this.worker, waitMs, late('worker'));
    await closeWithin(this.queue, CLOSE_MARGIN_MS, late('queue'));
  }

  async schedule(cron: CronRow): Promise<void> {
    if (!cron.enabled || (cron.endTime && cron.endTime.getTime() <= Date.now())) return this.unschedule(cron.cronId);
    await this.queue.upsertJobScheduler(
      cron.cronId,
      { pattern: cron.schedule, tz: cron.timezone ?? 'UTC', ...(cron.endTime ? { endDate: cron.endTime } : {}) },
      {
        name: CRON_JOB,
        data: { tenantId: cron.tenantId, cronId: cron.cronId },
        opts: { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
      },
    );
  }

  async unschedule(cronId: string): Promise<void> {
    await this.queue.removeJobScheduler(cronId);
  }

  private async tick(job: Job<CronJobData>): Promise<unknown> {
    const { tenantId, cronId } = job.data;
    const outcome = await this.runner.fire(tenantId, cronId);
    if (outcome.status === 'gone') await this.unschedule(cronId);
    return outcome;
  }
}
