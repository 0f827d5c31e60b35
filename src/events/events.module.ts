import { Module } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { redisOptions } from '../config/redis-options';
import { InProcessRunEventBus } from './in-process-run-event-bus';
import { RedisRunEventBus } from './redis-run-event-bus';
import { RunEventBus } from './run-event-bus';

/** The run event bus: Redis streams when REDIS_URL is set (across processes), in-process otherwise. */
@Module({
  providers: [
    {
      provide: RunEventBus,
      inject: [AppConfig],
      useFactory: (config: AppConfig): RunEventBus => {
        const { window, ttlS } = config.runEvents;
        if (!config.redisUrl) return new InProcessRunEventBus(window, ttlS * 1000);
        return new RedisRunEventBus(redisOptions(config), {
          prefix: config.queuePrefix,
          window,
          ttlS,
          // a run that stops publishing without ending (its worker died) is taken over within the run timeout
          idleTtlS: ttlS + Math.ceil(config.runTimeoutMs / 1000) * config.durability.maxAttempts,
        });
      },
    },
  ],
  exports: [RunEventBus],
})
export class EventsModule {}
