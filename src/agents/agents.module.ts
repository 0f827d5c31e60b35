import { Module } from '@nestjs/common';

import { StoreModule } from '../database/store/store.module';
import { ContractsModule } from '../knowledge/contracts/contracts.module';
import { DocumentsModule } from '../knowledge/documents/documents.module';
import { LlmModule } from '../llm/llm.module';
import { ToolsModule } from '../tools/tools.module';
import { AGENT_FACTORIES, AgentFactory } from './agent-definition';
import { AgentRegistry } from './agent-registry.service';
import { AssistantAgentFactory } from './assistant/assistant.agent';
import { ContractQaAgentFactory } from './contract-qa/contract-qa.agent';
import { PlanExecuteAgentFactory } from './plan-execute/plan-execute.agent';
import { ReactAgentFactory } from './react/react.agent';
import { SupervisorAgentFactory } from './supervisor/supervisor.agent';

const FACTORIES = [ReactAgentFactory, AssistantAgentFactory, SupervisorAgentFactory, PlanExecuteAgentFactory, ContractQaAgentFactory];

@Module({
  imports: [LlmModule, ToolsModule, DocumentsModule, ContractsModule, StoreModule],
  providers: [...FACTORIES, { provide: AGENT_FACTORIES, inject: FACTORIES, useFactory: (...f: AgentFactory[]) => f }, AgentRegistry],
  exports: [AgentRegistry],
})
export class AgentsModule {}
