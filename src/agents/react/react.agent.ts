import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { Injectable } from '@nestjs/common';

import { AppConfig } from '../../config/app-config';
import { LlmService } from '../../llm/llm.service';
import { MetricsService } from '../../observability/metrics.service';
import { ToolRegistry } from '../../tools/tool-registry.service';
import type { AgentDefinition, AgentFactory, AgentOutcome, TurnContext } from '../agent-definition';
import { uniqueSources } from '../shared/tool-executor';
import { buildReactGraph } from './graph';
import { type ReactStateType, type ReactUpdate, turnInput } from './state';

export const REACT_TOOLS = ['calculator', 'get_current_datetime'] as const;

/** Seed 002: the minimal tool loop input → llm ⇄ tool → response | error. */
@Injectable()
export class ReactAgentFactory implements AgentFactory {
  readonly name = 'react';

  constructor(
    private readonly llm: LlmService,
    private readonly tools: ToolRegistry,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

  create(checkpointer: BaseCheckpointSaver): AgentDefinition<ReactStateType, ReactUpdate> {
    const graph = buildReactGraph(
      {
        model: () => this.llm.chatModel(),
        tools: this.tools.pick(REACT_TOOLS, this.name),
        toolCalling: () => this.llm.toolCallingFor(this.name),
        toolRun: { metrics: this.metrics },
      },
      checkpointer,
    );
    return {
      name: this.name,
      description: 'Minimal ReAct tool loop (calculator, date/time) with an iteration limit.',
      graph,
      // a react turn is short: checkpoint once per turn; a crashed turn is re-run from its start
      durability: 'exit',
      // its state channels are LastValue and reducer channels: the final checkpoint holds the final state
      stateInCheckpoint: true,
      buildInput: (turn: TurnContext) => turnInput(turn, { maxIterations: this.config.iterationLimits.react }),
      toOutcome: (s: ReactStateType): AgentOutcome => {
        return {
          response: s.response,
          toolCalls: s.tool_calls,
          sources: uniqueSources(s.sources),
          error: s.error,
          metadata: { iterations: s.iteration_count, fast_path: s.fast_path, ...(s.degraded ? { degraded: true } : {}) },
          trace: {
            decision_log: s.tool_calls.map((c, i) => ({ step: i + 1, action: 'tool', tool: c.name, status: c.status })),
            tool_history: s.tool_calls,
          },
        };
      },
    };
  }
}
