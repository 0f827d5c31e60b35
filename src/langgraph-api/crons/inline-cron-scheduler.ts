import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';

import { CronRunner } from './cron-runner.service';
import { nextRunDate } from './cron-schedule';
import { CronScheduler } from './cron-scheduler';
import { type CronRow, CronsRepository } from './crons.repository';

/** setTimeout's longest delay; a later tick waits in steps of it. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * No Redis: crons fire from timers in this process (one process serves them; several API processes without
 * Redis would each fire). The crons are reloaded from `lg_crons` at start-up, so schedules survive restarts;
 * ticks missed while the process was down are not made up.
 */
@Injectable()
export class InlineCronScheduler extends CronScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly kind = 'inline' as const;
  private readonly logger = new Logger(InlineCronScheduler.name);
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** the tick each cron fired last: the next one is after it, even if a timer fires a little early */
  private readonly lastTick = new Map<string, number>();
  private closed = false;

  constructor(
    private readonly runner: CronRunner,
    private readonly crons: CronsRepository,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const cron of await this.crons.allEnabled()) await this.schedule(cron);
  }

  beforeApplicationShutdown(): void {
    this.closed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  async schedule(cron: CronRow): Promise<void> {
    await this.unschedule(cron.cronId);
    if (this.closed || !cron.enabled) return;
    const after = Math.max(Date.now(), this.lastTick.get(cron.cronId) ?? 0);
    const next = nextRunDate(cron.schedule, cron.timezone, cron.endTime, new Date(after));
    if (!next) return;
    this.arm(cron, next.getTime());
  }

  async unschedule(cronId: string): Promise<void> {
    clearTimeout(this.timers.get(cronId));
    this.timers.delete(cronId);
  }

  private arm(cron: CronRow, at: number): void {
    const delay = at - Date.now();
    const timer = setTimeout(
      () => {
        this.timers.delete(cron.cronId);
        if (delay > MAX_DELAY_MS) return this.arm(cron, at);
        this.lastTick.set(cron.cronId, at);
        void this.tick(cron);
      },
      Math.max(0, Math.min(delay, MAX_DELAY_MS)),
    );
    this.timers.set(cron.cronId, timer);
  }

  private async tick(cron: CronRow): Promise<void> {
    if (this.closed) return;
    try {
      const outcome = await this.runner.fire(cron.tenantId, cron.cronId);
      if (outcome.status === 'gone') return this.unschedule(cron.cronId);
    } catch (err) {
      this.logger.warn({ msg: 'cron tick failed', cron_id: cron.cronId, err: (err as Error).message });
    }
    // the cron may have changed since it was armed: reschedule from its row, unless rescheduled meanwhile
    if (this.closed || this.timers.has(cron.cronId)) return;
    const current = await this.crons.get(cron.tenantId, cron.cronId).catch(() => cron);
    if (current && !this.timers.has(cron.cronId)) await this.schedule(current);
  }
}
