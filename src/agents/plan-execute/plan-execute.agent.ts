import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { Injectable } from '@nestjs/common';

import { AppConfig } from '../../config/app-config';
import { turnLanguage } from '../../core/language';
import type { RunError } from '../../database/entities';
import { LlmService } from '../../llm/llm.service';
import { MetricsService } from '../../observability/metrics.service';
import { currentDatetime } from '../../tools/basic/datetime.tool';
import { createSummarizeTool } from '../../tools/basic/summarize.tool';
import { ToolRegistry } from '../../tools/tool-registry.service';
import type { AgentDefinition, AgentFactory, AgentOutcome, TurnContext } from '../agent-definition';
import { endOnModelOutage, outageAnswer } from '../shared/outage';
import { uniqueSources } from '../shared/tool-executor';
import { buildPlanExecuteGraph } from './graph';
import { type PlanExecuteStateType, type PlanExecuteUpdate, turnInput } from './state';

/** The model failed mid-turn: answer with the outputs of the steps that ran. */
function outageEnd(
  s: PlanExecuteStateType,
  error: RunError,
  _cause: unknown,
  config: { configurable: Record<string, unknown> },
): PlanExecuteStateType {
  const done = s.past_steps.filter((p) => p.status === 'success');
  const found = done.map((p) => `[${p.step.tool}] ${p.output}`).join('\n');
  const { text, degraded } = outageAnswer(found, turnLanguage(config, s.input));
  return { ...s, error, result: text, degraded };
}

export const PLAN_EXECUTE_TOOLS = [
  'calculator',
  'get_current_datetime',
  'search_wikipedia',
  'web_search',
  'get_weather',
  'search_knowledge_base',
  'summarize',
] as const;

/** Seed 004: intent → JSON plan → model-free executor → bounded re-plan → final answer; fail-closed. */
@Injectable()
export class PlanExecuteAgentFactory implements AgentFactory {
  readonly name = 'plan-execute';

  constructor(
    private readonly llm: LlmService,
    private readonly tools: ToolRegistry,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {
    if (tools.pick(['summarize']).length === 0) tools.register(createSummarizeTool(() => llm.chatModel({ temperature: 0 })));
  }

  create(checkpointer: BaseCheckpointSaver): AgentDefinition<PlanExecuteStateType, PlanExecuteUpdate> {
    const tools = this.tools.pick(PLAN_EXECUTE_TOOLS, this.name);
    const compiled = buildPlanExecuteGraph(
      {
        model: () => this.llm.chatModel(),
        tools: () => tools,
        stepTimeoutMs: this.config.planExecute.stepTimeoutMs,
        toolRun: { metrics: this.metrics },
      },
      checkpointer,
    );
    return {
      name: this.name,
      description: 'Plan-and-execute: intent classification, JSON plans, model-free executor, bounded re-planning, fail-closed.',
      graph: endOnModelOutage(compiled, outageEnd),
      buildInput: (turn: TurnContext) => turnInput(turn, { maxReplans: this.config.planExecute.maxReplans, now: currentDatetime() }),
      toOutcome: (s: PlanExecuteStateType): AgentOutcome => {
        const plan = s.past_steps.map((p) => p.step).concat(s.plan);
        return {
          response: s.result,
          toolCalls: s.past_steps.map((p) => ({
            name: p.step.tool,
            args: { input: p.step.input ?? null, input_from: p.step.input_from ?? null },
            status: p.status === 'success' ? 'success' : 'error',
          })),
          sources: uniqueSources(s.past_steps.flatMap((p) => p.sources ?? [])),
          error: s.error,
          metadata: {
            intent: s.intent,
            rewritten_query: s.rewritten_query,
            constraints: s.constraints,
            replan_count: s.replan_count,
            content_only: s.content_only,
            ...(s.degraded ? { degraded: true } : {}),
          },
          trace: { decision_log: s.decision_log, past_steps: s.past_steps, plan, tool_history: s.past_steps },
        };
      },
    };
  }
}
