import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module, Provider } from '@nestjs/common';
import IORedis from 'ioredis';

import { AppConfig } from '../config/app-config';
import { perConfig } from '../config/per-config';
import { redisOptions } from '../config/redis-options';
import { BullRunQueue } from './bull-run-queue';
import { InlineRunQueue } from './inline-run-queue';
import { RUNS_QUEUE } from './run.job';
import { CANCEL_CHANNEL_REDIS, RunCancellation } from './run-cancellation.service';
import { RUN_WORKER, RunQueue } from './run-queue';
import { RunQueueHealthIndicator } from './run-queue.health';
import { RunStoreModule } from './store/run-store.module';

/**
 * The run machinery below the orchestrator: the run store and the queue port with its driver — BullMQ with
 * REDIS_URL, the in-process queue without. `worker` false → this process only enqueues (RUN_WORKER=false on API
 * nodes); the run driver (orchestrator) hands the queue its handler when it runs a worker.
 */
@Module({})
export class RunsModule {
  static register(config: AppConfig, worker = config.runWorker): DynamicModule {
    return registered(config, worker);
  }
}

const registered = perConfig(build);

function build(config: AppConfig, worker: boolean): DynamicModule {
  const common: Provider[] = [RunCancellation, RunQueueHealthIndicator, { provide: RUN_WORKER, useValue: worker }];
  const exports = [RunQueue, RunCancellation, RunQueueHealthIndicator, RUN_WORKER, RunStoreModule];
  if (!config.redisUrl) {
    return {
      module: RunsModule,
      imports: [RunStoreModule],
      providers: [...common, InlineRunQueue, { provide: RunQueue, useExisting: InlineRunQueue }],
      exports,
    };
  }
  // the connection is read from the injected AppConfig: an embedding host's config may come from an async factory
  const connectionOf = (c: AppConfig) => redisOptions(c);
  return {
    module: RunsModule,
    imports: [
      RunStoreModule,
      BullModule.forRootAsync({
        inject: [AppConfig],
        useFactory: (c: AppConfig) => ({ connection: connectionOf(c), prefix: c.queuePrefix }),
      }),
      BullModule.registerQueue({ name: RUNS_QUEUE }),
    ],
    providers: [
      ...common,
      BullRunQueue,
      { provide: RunQueue, useExisting: BullRunQueue },
      {
        provide: CANCEL_CHANNEL_REDIS,
        inject: [AppConfig],
        useFactory: (c: AppConfig) => new IORedis({ ...connectionOf(c), lazyConnect: false }),
      },
    ],
    exports,
  };
}
