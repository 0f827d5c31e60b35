import { Module } from '@nestjs/common';

import { AgentsModule } from '../agents/agents.module';
import { LlmModule } from '../llm/llm.module';
import { ScopeModule } from '../scope/scope.module';
import { AgentOrchestrator } from './agent-orchestrator.service';
import { DurableRuns } from './durable-runs.repository';
import { RunRecords } from './run-records.service';
import { SessionsService } from './sessions.service';

@Module({
  imports: [AgentsModule, LlmModule, ScopeModule],
  providers: [AgentOrchestrator, SessionsService, RunRecords, DurableRuns],
  exports: [AgentOrchestrator, SessionsService, RunRecords, DurableRuns, AgentsModule],
})
export class OrchestratorModule {}
