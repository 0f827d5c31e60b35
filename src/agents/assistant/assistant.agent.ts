import type { BaseCheckpointSaver, BaseStore } from '@langchain/langgraph';
import { Inject, Injectable } from '@nestjs/common';

import { AppConfig } from '../../config/app-config';
import { LANGGRAPH_STORE } from '../../database/store/store.module';
import { DocumentsService } from '../../knowledge/documents/documents.service';
import { LlmService } from '../../llm/llm.service';
import { MetricsService } from '../../observability/metrics.service';
import { ToolRegistry } from '../../tools/tool-registry.service';
import type { AgentDefinition, AgentFactory, AgentOutcome, TurnContext } from '../agent-definition';
import { textOf } from '../shared/text';
import { buildAssistantGraph } from './graph';
import { type AssistantStateType, type AssistantUpdate, turnInput } from './state';

/** Seed 001's tools; the ones whose key, root or switch is missing are simply not offered (see GET /v1/tools). */
export const ASSISTANT_TOOLS = [
  'calculator',
  'get_current_datetime',
  'get_weather',
  'search_wikipedia',
  'web_search',
  'python_repl',
  'read_file',
  'search_knowledge_base',
] as const;

/** Seed 001: router → rag → memory → agent ⇄ tools, with summarising memory across turns. */
@Injectable()
export class AssistantAgentFactory implements AgentFactory {
  readonly name = 'assistant';

  constructor(
    private readonly llm: LlmService,
    private readonly tools: ToolRegistry,
    private readonly documents: DocumentsService,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    @Inject(LANGGRAPH_STORE) private readonly store: BaseStore,
  ) {}

  create(checkpointer: BaseCheckpointSaver): AgentDefinition<AssistantStateType, AssistantUpdate> {
    const graph = buildAssistantGraph(
      {
        model: () => this.llm.chatModel(),
        tools: this.tools.pick(ASSISTANT_TOOLS, this.name),
        toolCalling: () => this.llm.toolCallingFor(this.name),
        documents: this.documents,
        memory: this.config.assistantMemory,
        toolRun: { metrics: this.metrics },
        rankedRecall: () => ranksByMeaning(this.store),
      },
      checkpointer,
    );
    return {
      name: this.name,
      description: 'Assistant: router, knowledge-base RAG, summarising memory, memories across sessions, general tools.',
      graph,
      buildInput: (turn: TurnContext) => turnInput(turn, { maxIterations: this.config.iterationLimits.assistant }),
      toOutcome: (s: AssistantStateType): AgentOutcome => {
        const last = s.messages[s.messages.length - 1];
        return {
          response: last ? textOf(last.content) : '',
          toolCalls: s.tool_calls,
          sources: s.sources,
          error: s.error,
          summary: s.summary,
          metadata: {
            route: s.route,
            route_reason: s.route_reason,
            summarised: s.summarised,
            messages_in_state: s.messages.length,
            ...(s.recalled.length || s.remembered.length ? { memories: { recalled: s.recalled.length, remembered: s.remembered } } : {}),
            ...(s.degraded ? { degraded: true } : {}),
          },
          trace: {
            decision_log: [
              { step: 'router', route: s.route, reason: s.route_reason, decided_by: s.route_by },
              ...(s.route === 'rag' ? [{ step: 'rag', passages: s.context ? s.context.split('\n\n[').length : 0 }] : []),
              { step: 'memory', summarised: s.summarised },
              { step: 'long_term_memory', recalled: s.recalled.length, remembered: s.remembered, decided_by: s.remembered_by },
            ],
            tool_history: s.tool_calls,
          },
        };
      },
    };
  }
}

/** Whether the store ranks a search's `query` by meaning (it has a semantic index: embeddings are configured). */
function ranksByMeaning(store: BaseStore): boolean {
  return Boolean((store as { index?: unknown }).index);
}
