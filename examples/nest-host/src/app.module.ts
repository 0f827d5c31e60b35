import { Body, Controller, Module, Post } from '@nestjs/common';
import { AgentOrchestrator, AgentOrchestratorModule } from 'agent-orchestrator';

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

@Module({
  imports: [
    AgentOrchestratorModule.forRootAsync({
      // read once from the host's environment; the module's shape (HTTP under /agents, a worker) is given here
      useFactory: () => ({
        database: process.env.DATABASE_URL
          ? { url: process.env.DATABASE_URL }
          : { embedded: { dataDir: process.env.DATA_DIR ?? './data' } },
        model: { baseUrl: process.env.LLM_BASE_URL, apiKey: process.env.LLM_API_KEY, model: process.env.LLM_MODEL ?? 'gpt-4o-mini' },
        builtInAgents: ['react'],
        settings: { LLM_MAX_RETRIES: '0', LLM_CACHE: 'false' },
      }),
      http: { prefix: 'agents' },
    }),
  ],
  controllers: [SupportController],
  providers: [OrdersService, OrderTools, OrdersAgent],
})
export class AppModule {}
