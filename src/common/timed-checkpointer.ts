import type { RunnableConfig } from '@langchain/core/runnables';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';

import { phase } from './phases';

/** LangGraph's Postgres checkpointer with its reads and writes in the request's phases (PHASE_TIMINGS). */
export class TimedPostgresSaver extends PostgresSaver {
  override getTuple(config: RunnableConfig): ReturnType<PostgresSaver['getTuple']> {
    return phase('checkpoint_read', () => super.getTuple(config));
  }

  override put(...args: Parameters<PostgresSaver['put']>): ReturnType<PostgresSaver['put']> {
    return phase('checkpoint_write', () => super.put(...args));
  }

  override putWrites(...args: Parameters<PostgresSaver['putWrites']>): ReturnType<PostgresSaver['putWrites']> {
    return phase('checkpoint_write_pending', () => super.putWrites(...args));
  }
}
