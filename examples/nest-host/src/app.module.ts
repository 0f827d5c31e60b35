import { Body, Controller, Module, Post } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentOrchestrator, AgentOrchestratorModule } from 'agent-orchestrator';
import { DataSource } from 'typeorm';

import { OrdersAgent, OrderTools } from './orders.agent';
import { OrdersService } from './orders.service';

@Controller('support')
export class SupportController {
  constructor(private readonly orchestrator: AgentOrchestrator) {}

  /** The host's own route: one turn of its own agent, in-process. */
  @Post('ask')
  async ask(@Body() body: { question: string; sessionId?: string }) {
    const result = await this.orchestrator.chat({ message: body.question, sessionId: body.sessionId, agent: 'orders' });
    return { answer: result.response, tools: result.tools_used, sessionId: result.session_id };
  }
}

const databaseUrl = process.env.DATABASE_URL;

@Module({
  imports: [
    // the host's own TypeORM data source when it has a database; the service keeps its own pool on the same one
    ...(databaseUrl ? [TypeOrmModule.forRoot({ type: 'postgres', url: databaseUrl })] : []),
    AgentOrchestratorModule.forRootAsync({
      inject: [{ token: DataSource, optional: true }],
      useFactory: (dataSource?: DataSource) => ({
        database: dataSource ? { dataSource } : { embedded: { dataDir: process.env.DATA_DIR ?? './data' } },
        // unset LLM_BASE_URL → no model: the orders agent answers by rule (orders.agent.ts)
        model: { baseUrl: process.env.LLM_BASE_URL, apiKey: process.env.LLM_API_KEY, model: process.env.LLM_MODEL ?? 'gpt-4o-mini' },
        builtInAgents: ['react'],
        settings: { LLM_MAX_RETRIES: '0', LLM_CACHE: 'false' },
      }),
      http: { prefix: 'agents' }, // REST v1 + LangGraph API under /agents; default not mounted
    }),
  ],
  controllers: [SupportController],
  providers: [OrdersService, OrderTools, OrdersAgent],
})
export class AppModule {}
