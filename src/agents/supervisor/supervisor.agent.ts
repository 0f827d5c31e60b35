import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { Injectable, Optional } from '@nestjs/common';

import { AppConfig } from '../../config/app-config';
import { turnLanguage } from '../../core/language';
import type { RunError } from '../../database/entities';
import { LlmService } from '../../llm/llm.service';
import { MetricsService } from '../../observability/metrics.service';
import { A2aAgentSource } from '../../tools/a2a/a2a-agent-source.service';
import { a2aToolName } from '../../tools/a2a/a2a-card';
import { ToolRegistry } from '../../tools/tool-registry.service';
import type { AgentDefinition, AgentFactory, AgentOutcome, TurnContext } from '../agent-definition';
import { endOnModelOutage, outageAnswer } from '../shared/outage';
import { uniqueSources } from '../shared/tool-executor';
import { createA2aSubAgent, type SubAgent } from './a2a-sub-agent';
import { buildSupervisorGraph } from './graph';
import { createReactSubAgent, SubAgentOutage } from './react-sub-agent';
import { type SupervisorStateType, type SupervisorUpdate, turnInput } from './state';

/** The model failed mid-turn: answer with what the agents reported so far. */
function outageEnd(
  s: SupervisorStateType,
  error: RunError,
  cause: unknown,
  config: { configurable: Record<string, unknown> },
): SupervisorStateType {
  const partial = cause instanceof SubAgentOutage ? cause.partial : { records: [], sources: [], found: '' };
  const found = [...s.agent_outputs.map((o) => `[${o.agent}] ${o.output}`), partial.found].filter(Boolean).join('\n\n');
  const { text, degraded } = outageAnswer(found, turnLanguage(config, s.user_message));
  return {
    ...s,
    error,
    final_response: text,
    degraded,
    tool_calls: [...s.tool_calls, ...partial.records],
    sources: [...s.sources, ...partial.sources],
  };
}

/** Seed 003: a supervisor routing to ReAct sub-agents, with prompt-based tool calling for open models. */
@Injectable()
export class SupervisorAgentFactory implements AgentFactory {
  readonly name = 'supervisor';

  constructor(
    private readonly llm: LlmService,
    private readonly tools: ToolRegistry,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    @Optional() private readonly remote?: A2aAgentSource,
  ) {}

  /** A2A_AGENTS with `supervisor: true`: remote agents the supervisor may delegate to (a2a-sub-agent.ts). */
  private remoteSubAgents(taken: string[], toolRun: { metrics: MetricsService }): SubAgent[] {
    const remote = Object.entries(this.config.a2aAgents ?? {}).filter(([, a]) => a.supervisor);
    return remote.map(([name]) => {
      if (taken.includes(name) || name === 'supervisor_route')
        throw new Error(`Invalid configuration: A2A_AGENTS: "${name}" is already the name of one of the supervisor's agents`);
      const toolName = a2aToolName(name);
      const spec = { name, toolName, tools: this.tools.pick([toolName]), describe: () => this.remote?.description(name) };
      return createA2aSubAgent(spec, { toolRun });
    });
  }

  create(checkpointer: BaseCheckpointSaver): AgentDefinition<SupervisorStateType, SupervisorUpdate> {
    const deps = {
      model: () => this.llm.chatModel(),
      toolCalling: () => this.llm.toolCallingFor(this.name),
      toolRun: { metrics: this.metrics },
    };
    const agents: SubAgent[] = this.config.supervisor.agents.map((a) =>
      createReactSubAgent(
        { ...a, tools: this.tools.pick(a.tools, `supervisor:${a.name}`), maxIterations: this.config.supervisor.agentMaxIterations },
        deps,
      ),
    );
    agents.push(
      ...this.remoteSubAgents(
        agents.map((a) => a.name),
        deps.toolRun,
      ),
    );
    const compiled = buildSupervisorGraph({ model: deps.model, agents }, checkpointer);
    return {
      name: this.name,
      description: `Supervisor delegating to ${agents.map((a) => a.name).join(', ')} (works with prompt-based tool calling).`,
      graph: endOnModelOutage(compiled, outageEnd),
      buildInput: (turn: TurnContext) => turnInput(turn, { maxRoutings: this.config.supervisor.maxRoutings }),
      toOutcome: (s: SupervisorStateType): AgentOutcome => {
        return {
          response: s.final_response,
          toolCalls: s.tool_calls,
          sources: uniqueSources(s.sources ?? []),
          error: s.error,
          metadata: { delegations: s.delegations, routings: s.routing_count, ...(s.degraded ? { degraded: true } : {}) },
          trace: {
            decision_log: [
              ...s.delegations.map((d) => ({ step: 'delegate', ...d })),
              ...s.notes.map((n) => ({ step: 'correction', note: n })),
            ],
            tool_history: s.tool_calls,
            agent_outputs: s.agent_outputs,
          },
        };
      },
    };
  }
}
