import { Module } from '@nestjs/common';

import { AgentsModule } from '../agents/agents.module';
import { LlmModule } from '../llm/llm.module';
import { ScopeModule } from '../scope/scope.module';
import { AgentOrchestrator } from './agent-orchestrator.service';
import { DurableRuns } from './durable-runs.repository';
import { RunRecords } from './run-records.service';
import { SessionsService } from './sessions.service';
import { TurnLease } from './turn-lease.service';

@Module({
  imports: [AgentsModule, LlmModule, ScopeModule],
  providers: [AgentOrchestrator, SessionsService, RunRecords, DurableRuns, TurnLease],
  exports: [AgentOrchestrator, SessionsService, RunRecords, DurableRuns, AgentsModule],
})
export class OrchestratorModule {}
