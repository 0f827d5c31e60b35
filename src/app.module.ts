import './settings/all-settings'; // the settings slices AppConfig is built from

import { DynamicModule, Module } from '@nestjs/common';

import { ApiModule } from './api/api.module';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { type Env, resolveConfig } from './config/config-source';
import { ConsoleModule } from './console/console.module';
import { DatabaseModule } from './database/database.module';
import { LangGraphApiModule } from './langgraph-api/langgraph-api.module';
import { ObservabilityModule } from './observability/observability.module';
import { RunServiceModule } from './orchestrator/run-service.module';

@Module({})
export class AppModule {
  /** The HTTP service (with an in-process worker unless RUN_WORKER=false). */
  static forRoot(source: AppConfig | Env = process.env): DynamicModule {
    const config = resolveConfig(source);
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        ObservabilityModule.forRoot(config),
        DatabaseModule,
        ApiModule.register(config),
        LangGraphApiModule.register(config),
        ConsoleModule,
      ],
    };
  }
}

@Module({})
export class WorkerModule {
  /** A worker process only: consumes queued runs; needs REDIS_URL and a shared DATABASE_URL. */
  static forRoot(source: AppConfig | Env = process.env): DynamicModule {
    const config = resolveConfig(source);
    return {
      module: WorkerModule,
      imports: [ConfigModule.forRoot(config), ObservabilityModule.forRoot(config), DatabaseModule, RunServiceModule.register(config, true)],
    };
  }
}
