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

  /**
   * Inside a host app: metrics and run spans only. The host owns its logger and its OpenTelemetry SDK (the spans
   * go to whatever tracer provider it registered); the options are resolved too late to start either here.
   */
  static forHost(): DynamicModule {
    return { module: ObservabilityModule, providers: [MetricsService, RunObserver], exports: [MetricsService, RunObserver] };
  }
}
