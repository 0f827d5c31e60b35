import { Module } from '@nestjs/common';

import { AgentsModule } from '../agents/agents.module';
import { LlmModule } from '../llm/llm.module';
import { RunRecordsModule } from '../runs/records/run-records.module';
import { ScopeModule } from '../scope/scope.module';
import { ToolApprovalStore } from '../tools/tool-approval.store';
import { AgentOrchestrator } from './agent-orchestrator.service';
import { SessionsService } from './sessions.service';
import { TurnLease } from './turn-lease.service';

@Module({
  imports: [AgentsModule, LlmModule, ScopeModule, RunRecordsModule],
  providers: [AgentOrchestrator, SessionsService, ToolApprovalStore, TurnLease],
  exports: [AgentOrchestrator, SessionsService, AgentsModule, ToolApprovalStore],
})
export class OrchestratorModule {}
