import { Module } from '@nestjs/common';

import { AgentsModule } from '../agents/agents.module';
import { LlmModule } from '../llm/llm.module';
import { MemoryModule } from '../memory/memory.module';
import { RunRecordsModule } from '../runs/records/run-records.module';
import { ScopeModule } from '../scope/scope.module';
import { ToolApprovalStore } from '../tools/tool-approval.store';
import { AgentOrchestrator } from './agent-orchestrator.service';
import { TurnLease } from './turn-lease.service';

@Module({
  imports: [AgentsModule, LlmModule, MemoryModule, ScopeModule, RunRecordsModule],
  providers: [AgentOrchestrator, ToolApprovalStore, TurnLease],
  exports: [AgentOrchestrator, AgentsModule, ToolApprovalStore],
})
export class OrchestratorModule {}
