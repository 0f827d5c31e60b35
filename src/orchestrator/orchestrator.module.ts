import { Module } from '@nestjs/common';

import { AgentsModule } from '../agents/agents.module';
import { StoreModule } from '../database/store/store.module';
import { EventsModule } from '../events/events.module';
import { LlmModule } from '../llm/llm.module';
import { MemoryModule } from '../memory/memory.module';
import { RunStoreModule } from '../runs/store/run-store.module';
import { ScopeModule } from '../scope/scope.module';
import { AgentOrchestrator } from './agent-orchestrator.service';
import { GraphRunner } from './graph-runner.service';
import { RunAdmission } from './run-admission.service';
import { RunOutcomes } from './run-outcomes.service';
import { TurnLease } from './turn-lease.service';

@Module({
  imports: [AgentsModule, LlmModule, MemoryModule, ScopeModule, RunStoreModule, EventsModule, StoreModule],
  providers: [AgentOrchestrator, RunAdmission, RunOutcomes, GraphRunner, TurnLease],
  exports: [AgentOrchestrator, RunAdmission, RunOutcomes, AgentsModule, EventsModule, RunStoreModule],
})
export class OrchestratorModule {}
