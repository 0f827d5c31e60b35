import { Module } from '@nestjs/common';

import { AgentsModule } from '../agents/agents.module';
import { StoreModule } from '../database/store/store.module';
import { EventsModule } from '../events/events.module';
import { LlmModule } from '../llm/llm.module';
import { MemoryModule } from '../memory/memory.module';
import { RunRecordsModule } from '../runs/records/run-records.module';
import { ScopeModule } from '../scope/scope.module';
import { ToolApprovalRepository } from '../tools/tool-approval.repository';
import { AgentOrchestrator } from './agent-orchestrator.service';
import { GraphRunner } from './graph-runner.service';
import { TurnLease } from './turn-lease.service';

@Module({
  imports: [AgentsModule, LlmModule, MemoryModule, ScopeModule, RunRecordsModule, EventsModule, StoreModule],
  providers: [AgentOrchestrator, GraphRunner, ToolApprovalRepository, TurnLease],
  exports: [AgentOrchestrator, AgentsModule, ToolApprovalRepository, EventsModule],
})
export class OrchestratorModule {}
