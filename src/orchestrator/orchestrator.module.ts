import { Module } from '@nestjs/common';

import { AgentsModule } from '../agents/agents.module';
import { EventsModule } from '../events/events.module';
import { LlmModule } from '../llm/llm.module';
import { ScopeModule } from '../scope/scope.module';
import { ToolApprovalStore } from '../tools/tool-approval.store';
import { AgentOrchestrator } from './agent-orchestrator.service';
import { DurableRuns } from './durable-runs.repository';
import { RunRecords } from './run-records.service';
import { SessionsService } from './sessions.service';
import { TurnLease } from './turn-lease.service';

@Module({
  imports: [AgentsModule, LlmModule, ScopeModule, EventsModule],
  providers: [AgentOrchestrator, SessionsService, RunRecords, ToolApprovalStore, DurableRuns, TurnLease],
  exports: [AgentOrchestrator, SessionsService, RunRecords, AgentsModule, ToolApprovalStore, DurableRuns, EventsModule],
})
export class OrchestratorModule {}
