import { DynamicModule, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';

import { AuthModule } from '../auth/auth.module';
import { JwksHealthIndicator } from '../auth/jwks.health';
import { markServiceControllers } from '../auth/tenant.guard';
import type { AppConfig } from '../config/app-config';
import { DatabaseHealthIndicator } from '../database/database.health';
import { StoreModule } from '../database/store/store.module';
import { StoreIndexHealthIndicator } from '../database/store/store-index.health';
import { ContractsModule } from '../knowledge/contracts/contracts.module';
import { DocumentsModule } from '../knowledge/documents/documents.module';
import { MemoryModule } from '../memory/memory.module';
import { HealthController } from '../observability/health.controller';
import { HEALTH_INDICATORS, type HealthIndicator } from '../observability/health-indicator';
import { HttpMetricsMiddleware } from '../observability/http-metrics.middleware';
import { MetricsController } from '../observability/metrics.controller';
import { OrchestratorModule } from '../orchestrator/orchestrator.module';
import { RunServiceModule } from '../orchestrator/run-service.module';
import { RunQueueHealthIndicator } from '../runs/run-queue.health';
import { RunStoreModule } from '../runs/store/run-store.module';
import { A2aHealthIndicator } from '../tools/a2a/a2a.health';
import { McpHealthIndicator } from '../tools/mcp/mcp.health';
import { ToolsModule } from '../tools/tools.module';
import { ApprovalsController } from './controllers/approvals.controller';
import { CatalogController } from './controllers/catalog.controller';
import { ChatController } from './controllers/chat.controller';
import { ContractsController } from './controllers/contracts.controller';
import { DocumentsController } from './controllers/documents.controller';
import { JobsController } from './controllers/jobs.controller';
import { MemoriesController } from './controllers/memories.controller';
import { SessionsController } from './controllers/sessions.controller';
import { MemoriesService } from './memories.service';
import { SessionAccess } from './session-access';
import { TurnGate } from './turn-gate';

/** REST v1, health and metrics (an embedding host mounts them under its prefix: AgentOrchestratorModule). */
export const API_CONTROLLERS = [
  ChatController,
  JobsController,
  ApprovalsController,
  SessionsController,
  CatalogController,
  DocumentsController,
  ContractsController,
  MemoriesController,
  HealthController,
  MetricsController,
];
markServiceControllers(API_CONTROLLERS);

@Module({})
export class ApiModule implements NestModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        AuthModule,
        OrchestratorModule,
        MemoryModule,
        RunStoreModule,
        StoreModule,
        RunServiceModule.register(config),
        ToolsModule,
        DocumentsModule,
        ContractsModule,
        StoreModule,
      ],
      controllers: API_CONTROLLERS,
      providers: [
        HttpMetricsMiddleware,
        TurnGate,
        SessionAccess,
        MemoriesService,
        // readiness: each module provides the indicator of what it owns; observability imports none of them
        {
          provide: HEALTH_INDICATORS,
          inject: [
            DatabaseHealthIndicator,
            RunQueueHealthIndicator,
            McpHealthIndicator,
            A2aHealthIndicator,
            JwksHealthIndicator,
            StoreIndexHealthIndicator,
          ],
          useFactory: (...indicators: HealthIndicator[]) => indicators,
        },
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpMetricsMiddleware).forRoutes('*');
  }
}
