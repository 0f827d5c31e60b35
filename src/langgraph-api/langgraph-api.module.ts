import { DynamicModule, Module } from '@nestjs/common';

import { AuthModule } from '../auth/auth.module';
import { markServiceControllers } from '../auth/tenant.guard';
import type { AppConfig } from '../config/app-config';
import { StoreModule } from '../database/store/store.module';
import { OrchestratorModule } from '../orchestrator/orchestrator.module';
import { RunServiceModule } from '../orchestrator/run-service.module';
import { RunStoreModule } from '../runs/store/run-store.module';
import { A2aController } from './a2a/a2a.controller';
import { A2aTasks } from './a2a/a2a-tasks';
import { AssistantsController } from './assistants/assistants.controller';
import { AssistantsRepository } from './assistants/assistants.repository';
import { AssistantsService } from './assistants/assistants.service';
import { GraphSchemas } from './assistants/graph-schemas';
import { LanggraphCustomAuth } from './auth/custom-auth';
import { CronsController } from './crons/crons.controller';
import { cronProviders } from './crons/crons.providers';
import { CustomHttpApp } from './http-app/custom-http-app';
import { McpController } from './mcp/mcp.controller';
import { InfoController } from './meta/info.controller';
import { SocketUpgrades } from './protocol/socket/socket-upgrades';
import { StreamSocketController } from './protocol/socket/stream-socket.controller';
import { ThreadProtocolController } from './protocol/thread-protocol.controller';
import { ThreadProtocolService } from './protocol/thread-protocol.service';
import { LgRunsRepository } from './runs/lg-runs.repository';
import { LangGraphRunsService } from './runs/lg-runs.service';
import { RunJoins } from './runs/run-joins';
import { RunRequestChecks } from './runs/run-request-checks';
import { RunWebhooks } from './runs/run-webhook';
import { RunsController } from './runs/runs.controller';
import { WebhookDelivery } from './runs/webhook-delivery';
import { StoreController } from './store/store.controller';
import { StoreService } from './store/store.service';
import { ThreadsController } from './threads/threads.controller';
import { ThreadsRepository } from './threads/threads.repository';
import { ThreadsService } from './threads/threads.service';
import { TruncateController } from './truncate/truncate.controller';
import { TruncateService } from './truncate/truncate.service';
import { UiController } from './ui/ui.controller';
import { UiBundles } from './ui/ui-bundles';

/**
 * The LangGraph Server API ("Agent Protocol") at the root paths the `@langchain/langgraph-sdk` Client calls:
 * `/assistants` (the registry's graphs plus a tenant's own assistants), `/threads` (sessions, their state and
 * history through the checkpointer), `/store` and `/runs/crons`, behind the same API keys and tenancy as REST v1.
 *
 * Runs (`/threads/{id}/runs...`, `/runs/...`, `runs/`) are run rows queued through the runs module (the same
 * dynamic module instance the REST API uses: `RunsModule.register` returns one per config). Crons (`crons/`)
 * start their runs through the same module. `/mcp` offers the assistants as MCP tools (mcp/mcp.controller.ts), `/a2a`
 * as A2A agents (a2a/a2a.controller.ts).
 */
export const LANGGRAPH_API_CONTROLLERS = [
  AssistantsController,
  ThreadsController,
  StoreController,
  RunsController,
  ThreadProtocolController,
  CronsController,
  McpController,
  A2aController,
  UiController,
  InfoController,
  StreamSocketController,
];
markServiceControllers([...LANGGRAPH_API_CONTROLLERS, TruncateController]);

@Module({})
export class LangGraphApiModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: LangGraphApiModule,
      imports: [AuthModule, OrchestratorModule, RunStoreModule, RunServiceModule.register(config), StoreModule],
      // POST /internal/truncate exists only when enabled: off, it answers as any unknown route
      controllers: config.truncateEnabled ? [...LANGGRAPH_API_CONTROLLERS, TruncateController] : LANGGRAPH_API_CONTROLLERS,
      providers: [
        AssistantsRepository,
        AssistantsService,
        GraphSchemas,
        ThreadsRepository,
        ThreadsService,
        StoreService,
        LgRunsRepository,
        LangGraphRunsService,
        RunJoins,
        ThreadProtocolService,
        A2aTasks,
        RunRequestChecks,
        RunWebhooks,
        WebhookDelivery,
        CustomHttpApp,
        LanggraphCustomAuth,
        UiBundles,
        SocketUpgrades,
        ...cronProviders(config),
        ...(config.truncateEnabled ? [TruncateService] : []),
      ],
      exports: [ThreadsRepository, ThreadProtocolService, AssistantsService, StoreService, CustomHttpApp, LanggraphCustomAuth, UiBundles],
    };
  }
}
