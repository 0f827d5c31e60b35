import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { Pool } from 'pg';

import { PG_POOL } from '../database/pg-pool';
import { AGENT_FACTORIES, AgentDefinition, AgentFactory } from './agent-definition';

/** LangGraph's checkpoint tables live in their own schema, created by `PostgresSaver.setup()`. */
export const CHECKPOINT_SCHEMA = 'langgraph';

/** The built agent graphs, each compiled with the official Postgres checkpointer (thread_id = session id). */
@Injectable()
export class AgentRegistry implements OnModuleInit {
  readonly checkpointer: PostgresSaver;
  private readonly agents = new Map<string, AgentDefinition>();

  constructor(
    @Inject(PG_POOL) pool: Pool,
    @Inject(AGENT_FACTORIES) private readonly factories: AgentFactory[],
  ) {
    this.checkpointer = new PostgresSaver(pool, undefined, { schema: CHECKPOINT_SCHEMA });
  }

  async onModuleInit(): Promise<void> {
    await this.checkpointer.setup();
    for (const f of this.factories) this.agents.set(f.name, f.create(this.checkpointer));
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
