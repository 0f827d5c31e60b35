import { Inject, Injectable, Logger, OnModuleInit, Optional } from '@nestjs/common';
import { Pool } from 'pg';

import { AppConfig } from '../config/app-config';
import { CHECKPOINT_SCHEMA } from '../database/checkpoint-schema';
import { TimedPostgresSaver } from '../database/checkpoint-writer';
import { PG_POOL } from '../database/pg-pool';
import { LlmService } from '../llm/llm.service';
import { ToolRegistry } from '../tools/tool-registry.service';
import { AGENT_FACTORIES, AgentDefinition, AgentFactory } from './agent-definition';
import { loadCustomGraphs } from './custom-graphs/custom-graphs';
import { defaultsFor } from './custom-graphs/graph-defaults';
import { HOST_AGENTS, hostAgentDefinition, type HostAgents } from './host-agent';

/**
 * The built agent graphs, each compiled with the official Postgres checkpointer (thread_id = session id):
 * the built-in agents (those of BUILTIN_AGENTS), the graphs of `langgraph.json` (LANGGRAPH_CONFIG) when one is
 * configured, then a host application's own agents when the service is embedded (AgentOrchestratorModule).
 */
@Injectable()
export class AgentRegistry implements OnModuleInit {
  readonly checkpointer: TimedPostgresSaver;
  private readonly logger = new Logger(AgentRegistry.name);
  private readonly agents = new Map<string, AgentDefinition>();

  constructor(
    @Inject(PG_POOL) pool: Pool,
    @Inject(AGENT_FACTORIES) private readonly factories: AgentFactory[],
    private readonly config: AppConfig,
    private readonly tools: ToolRegistry,
    private readonly llm: LlmService,
    @Optional() @Inject(HOST_AGENTS) private readonly host?: HostAgents,
  ) {
    this.checkpointer = new TimedPostgresSaver(pool, CHECKPOINT_SCHEMA);
  }

  async onModuleInit(): Promise<void> {
    await this.checkpointer.setup();
    const enabled = this.config.builtInAgents;
    const defaults = this.config.graphDefaults;
    for (const f of this.factories) {
      if (enabled && !enabled.has(f.name)) continue;
      const agent = f.create(this.checkpointer);
      agent.defaults = defaultsFor(defaults, f.name);
      this.agents.set(f.name, agent);
    }
    if (this.config.langgraphConfig) {
      // fail fast: a graph the operator configured but that cannot load stops the start-up, naming it
      const builtIn = new Set(this.agents.keys());
      const custom = await loadCustomGraphs(this.config.langgraphConfig, this.checkpointer, builtIn, this.logger, undefined, defaults);
      for (const agent of custom) this.agents.set(agent.name, agent);
    }
    for (const agent of this.host?.agents() ?? []) {
      if (this.agents.has(agent.name)) throw new Error(`Invalid configuration: host agent "${agent.name}" has the name of another agent`);
      const ctx = { tools: this.tools.pick(agent.tools ?? [], agent.name), model: this.llm.chatModel(), checkpointer: this.checkpointer };
      this.agents.set(agent.name, await hostAgentDefinition(agent, ctx));
      this.logger.log({ msg: 'host agent registered', agent: agent.name, tools: ctx.tools.map((t) => t.name) });
    }
  }

  names(): string[] {
    return [...this.agents.keys()];
  }

  get(name: string): AgentDefinition | undefined {
    return this.agents.get(name);
  }
}
