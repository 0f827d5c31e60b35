import { Module } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { redisOptions } from '../config/redis-options';
import { InProcessRunEventBus } from './in-process-run-event-bus';
import { InProcessThreadEventLog } from './in-process-thread-event-log';
import { ProtocolRunEventBus } from './protocol-run-event-bus';
import { RedisRunEventBus } from './redis-run-event-bus';
import { RedisThreadEventLog } from './redis-thread-event-log';
import { RunEventBus } from './run-event-bus';
import { ThreadEventLog } from './thread-event-log';

function runEventBus(config: AppConfig): RunEventBus {
  const { window, ttlS } = config.runEvents;
  if (!config.redisUrl) return new InProcessRunEventBus(window, ttlS * 1000);
  return new RedisRunEventBus(redisOptions(config), {
    prefix: config.queuePrefix,
    window,
    ttlS,
    // a run that stops publishing without ending (its worker died) is taken over within the run timeout
    idleTtlS: ttlS + Math.ceil(config.runTimeoutMs / 1000) * config.durability.maxAttempts,
  });
}

/**
 * The run event bus: Redis streams when REDIS_URL is set (across processes), in-process otherwise; and the
 * thread event protocol's per-thread log beside it, fed by the bus as protocol runs publish.
 */
@Module({
  providers: [
    {
      provide: ThreadEventLog,
      inject: [AppConfig],
      useFactory: (config: AppConfig): ThreadEventLog => {
        const { window, ttlS } = config.runEvents;
        if (!config.redisUrl) return new InProcessThreadEventLog(window, ttlS * 1000);
        return new RedisThreadEventLog(redisOptions(config), { prefix: config.queuePrefix, window, ttlS });
      },
    },
    {
      provide: RunEventBus,
      inject: [AppConfig, ThreadEventLog],
      useFactory: (config: AppConfig, log: ThreadEventLog): RunEventBus => new ProtocolRunEventBus(runEventBus(config), log),
    },
  ],
  exports: [RunEventBus, ThreadEventLog],
})
export class EventsModule {}
