import { Module } from '@nestjs/common';

import { AgentsModule } from '../agents/agents.module';
import { LlmModule } from '../llm/llm.module';
import { ScopeModule } from '../scope/scope.module';
import { ToolApprovalStore } from '../tools/tool-approval.store';
import { AgentOrchestrator } from './agent-orchestrator.service';
import { RunRecords } from './run-records.service';
import { SessionsService } from './sessions.service';

@Module({
  imports: [AgentsModule, LlmModule, ScopeModule],
  providers: [AgentOrchestrator, SessionsService, RunRecords, ToolApprovalStore],
  exports: [AgentOrchestrator, SessionsService, RunRecords, AgentsModule, ToolApprovalStore],
})
export class OrchestratorModule {}
