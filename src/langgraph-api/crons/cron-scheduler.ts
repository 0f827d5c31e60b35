import type { CronRow } from './crons.repository';

/**
 * What makes a cron fire: BullMQ job schedulers on Redis (each tick once, whichever process takes it), or
 * timers in this process when no Redis is configured. Both call `CronRunner.fire` at each tick.
 */
export abstract class CronScheduler {
  abstract readonly kind: 'bullmq' | 'inline';
  /** Starts (or replaces) the cron's schedule; a disabled or ended cron is unscheduled. */
  abstract schedule(cron: CronRow): Promise<void>;
  abstract unschedule(cronId: string): Promise<void>;
}
