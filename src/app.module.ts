import { DynamicModule, Module } from '@nestjs/common';

import { ApiModule } from './api/api.module';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { ObservabilityModule } from './observability/observability.module';
import { RunsModule } from './runs/runs.module';

@Module({})
export class AppModule {
  /** The HTTP service (with an in-process worker unless RUN_WORKER=false). */
  static forRoot(env: Record<string, string | undefined> = process.env): DynamicModule {
    const config = new AppConfig(env);
    return {
      module: AppModule,
      imports: [ConfigModule.forRoot(env), ObservabilityModule, DatabaseModule, ApiModule.register(config)],
    };
  }
}

@Module({})
export class WorkerModule {
  /** A worker process only: consumes queued runs; needs REDIS_URL and a shared DATABASE_URL. */
  static forRoot(env: Record<string, string | undefined> = process.env): DynamicModule {
    const config = new AppConfig(env);
    return {
      module: WorkerModule,
      imports: [ConfigModule.forRoot(env), ObservabilityModule, DatabaseModule, RunsModule.register(config, true)],
    };
  }
}
