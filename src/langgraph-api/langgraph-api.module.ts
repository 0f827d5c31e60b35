import { Module } from '@nestjs/common';

import { AuthModule } from '../auth/auth.module';
import { OrchestratorModule } from '../orchestrator/orchestrator.module';
import { AssistantsController } from './assistants/assistants.controller';
import { AssistantsRepository } from './assistants/assistants.repository';
import { AssistantsService } from './assistants/assistants.service';
import { StoreController } from './store/store.controller';
import { StoreService } from './store/store.service';
import { ThreadsController } from './threads/threads.controller';
import { ThreadsRepository } from './threads/threads.repository';
import { ThreadsService } from './threads/threads.service';

/**
 * The LangGraph Server API ("Agent Protocol") at the root paths the `@langchain/langgraph-sdk` Client calls:
 * `/assistants` (the registry's graphs plus a tenant's own assistants), `/threads` (sessions, their state and
 * history through the checkpointer) and `/store`, behind the same API keys and tenancy as REST v1.
 *
 * Runs (`/threads/{id}/runs...`, `/runs/...`) go in `runs/runs.controller.ts` beside these, registered in
 * `controllers` below; `ThreadsRepository.recordRunAssistant` puts a run's assistant and graph on its thread.
 */
@Module({
  imports: [AuthModule, OrchestratorModule],
  controllers: [AssistantsController, ThreadsController, StoreController],
  providers: [AssistantsRepository, AssistantsService, ThreadsRepository, ThreadsService, StoreService],
  exports: [ThreadsRepository, AssistantsService, StoreService],
})
export class LangGraphApiModule {}
