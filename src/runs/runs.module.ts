import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module, Provider } from '@nestjs/common';
import IORedis from 'ioredis';

import { AppConfig } from '../config/app-config';
import { redisOptions } from '../config/redis-options';
import { OrchestratorModule } from '../orchestrator/orchestrator.module';
import { BullRunQueue } from './bull-run-queue';
import { InlineRunQueue } from './inline-run-queue';
import { LocalRuns } from './local-runs.service';
import { RUNS_QUEUE } from './run.job';
import { RunProcessor } from './run.processor';
import { CANCEL_CHANNEL_REDIS, RunCancellation } from './run-cancellation.service';
import { RunExecutor } from './run-executor.service';
import { RunQueue } from './run-queue';
import { RunQueueHealthIndicator } from './run-queue.health';
import { RunRecovery } from './run-recovery.service';
import { RunsService } from './runs.service';
import { RunStoreModule } from './store/run-store.module';

const registered = new WeakMap<AppConfig, Map<boolean, DynamicModule>>();

@Module({})
export class RunsModule {
  /**
   * With REDIS_URL: BullMQ queue (+ the worker when this process runs one). Without: the in-process queue.
   * `worker` false → this process only enqueues (RUN_WORKER=false on API nodes).
   */
  static register(config: AppConfig, worker = config.runWorker): DynamicModule {
    // one module object per (config, worker): Nest 11 tells dynamic modules apart by reference, and the REST
    // and LangGraph APIs must share one queue (and one in-process worker)
    const byWorker = registered.get(config) ?? new Map<boolean, DynamicModule>();
    registered.set(config, byWorker);
    const known = byWorker.get(worker);
    if (known) return known;
    const made = RunsModule.build(config, worker);
    byWorker.set(worker, made);
    return made;
  }

  private static build(config: AppConfig, worker: boolean): DynamicModule {
    const common: Provider[] = [RunsService, RunExecutor, RunCancellation, RunQueueHealthIndicator];
    if (!config.redisUrl) {
      return {
        module: RunsModule,
        imports: [OrchestratorModule, RunStoreModule],
        providers: [...common, InlineRunQueue, { provide: RunQueue, useExisting: InlineRunQueue }, RunRecovery],
        exports: [RunsService, RunQueue, RunQueueHealthIndicator],
      };
    }
    // the connection is read from the injected AppConfig: an embedding host's config may come from an async factory
    const connectionOf = (c: AppConfig) => redisOptions(c.redisUrl!);
    return {
      module: RunsModule,
      imports: [
        OrchestratorModule,
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
        // a process with a worker also executes the runs its clients wait for itself (LocalRuns)
        ...(worker ? [RunProcessor, RunRecovery, LocalRuns] : []),
      ],
      exports: [RunsService, RunQueue, RunQueueHealthIndicator],
    };
  }
}
