import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { Pool } from 'pg';

import { TimedPostgresSaver } from '../common/timed-checkpointer';
import { AppConfig } from '../config/app-config';
import { PG_POOL } from '../database/pg-pool';
import { AGENT_FACTORIES, AgentDefinition, AgentFactory } from './agent-definition';
import { loadCustomGraphs } from './custom-graphs/custom-graphs';

/** LangGraph's checkpoint tables live in their own schema, created by `PostgresSaver.setup()`. */
export const CHECKPOINT_SCHEMA = 'langgraph';

/**
 * The built agent graphs, each compiled with the official Postgres checkpointer (thread_id = session id):
 * the built-in agents, then the graphs of `langgraph.json` (LANGGRAPH_CONFIG) when one is configured.
 */
@Injectable()
export class AgentRegistry implements OnModuleInit {
  readonly checkpointer: PostgresSaver;
  private readonly logger = new Logger(AgentRegistry.name);
  private readonly agents = new Map<string, AgentDefinition>();

  constructor(
    @Inject(PG_POOL) pool: Pool,
    @Inject(AGENT_FACTORIES) private readonly factories: AgentFactory[],
    private readonly config: AppConfig,
  ) {
    this.checkpointer = new TimedPostgresSaver(pool, CHECKPOINT_SCHEMA);
  }

  async onModuleInit(): Promise<void> {
    await this.checkpointer.setup();
    for (const f of this.factories) this.agents.set(f.name, f.create(this.checkpointer));
    if (!this.config.langgraphConfig) return;
    // fail fast: a graph the operator configured but that cannot load stops the start-up, naming it
    const custom = await loadCustomGraphs(this.config.langgraphConfig, this.checkpointer, new Set(this.agents.keys()), this.logger);
    for (const agent of custom) this.agents.set(agent.name, agent);
  }

  names(): string[] {
    return [...this.agents.keys()];
  }

  get(name: string): AgentDefinition | undefined {
    return this.agents.get(name);
  }

  /** Forget a conversation's checkpoints. */
  async deleteThread(threadId: string): Promise<void> {
    await this.checkpointer.deleteThread(threadId);
  }
}
