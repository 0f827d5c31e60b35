import type { Provider } from '@nestjs/common';

import type { AppConfig } from '../../config/app-config';
import { BullCronScheduler } from './bull-cron-scheduler';
import { CronRunner } from './cron-runner.service';
import { CronScheduler } from './cron-scheduler';
import { CronsRepository } from './crons.repository';
import { CronsService } from './crons.service';
import { InlineCronScheduler } from './inline-cron-scheduler';

/** The crons part of the LangGraph API module: BullMQ job schedulers with REDIS_URL, timers in this process without. */
export function cronProviders(config: AppConfig): Provider[] {
  const scheduler = config.redisUrl ? BullCronScheduler : InlineCronScheduler;
  return [CronsRepository, CronsService, CronRunner, scheduler, { provide: CronScheduler, useExisting: scheduler }];
}
