import { DynamicModule, Global, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';

import type { AppConfig } from '../config/app-config';
import { loggerModule } from './logger';
import { MetricsService } from './metrics.service';
import { RunObserver } from './run-observer.service';
import { flushTracing, startTracing } from './tracing';

@Injectable()
class TracingShutdown implements OnApplicationShutdown {
  async onApplicationShutdown(): Promise<void> {
    await flushTracing();
  }
}

/** Logs (nestjs-pino), metrics (prom-client) and traces (OpenTelemetry) of the process. */
@Global()
@Module({})
export class ObservabilityModule {
  static forRoot(config: AppConfig): DynamicModule {
    startTracing(config);
    return {
      module: ObservabilityModule,
      imports: [loggerModule(config)],
      providers: [MetricsService, RunObserver, TracingShutdown],
      exports: [MetricsService, RunObserver],
    };
  }
}
