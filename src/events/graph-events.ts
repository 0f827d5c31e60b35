import type { RunnableConfig } from '@langchain/core/runnables';
import { Runnable } from '@langchain/core/runnables';
import type { StreamEvent } from '@langchain/core/tracers/log_stream';

import type { RunnableGraph } from '../core/run-types';

/**
 * An agent's graph behind LangChain's `streamEvents`: the graph (with its wrappers, e.g. endOnModelOutage) runs
 * through its own `stream`, and LangChain's event-stream callback handler (not exported by @langchain/core, so it is
 * reached through `Runnable.streamEvents`) reports every chain, model and tool of the run.
 */
class StreamingGraph extends Runnable<unknown, unknown> {
  lc_namespace = ['agent_orchestrator', 'events'];

  constructor(private readonly graph: RunnableGraph) {
    super();
  }

  invoke(): Promise<unknown> {
    return Promise.reject(new Error('StreamingGraph only streams'));
  }

  override async *_streamIterator(input: unknown, options?: Partial<RunnableConfig>): AsyncGenerator<unknown> {
    // `version` is streamEvents' own option, not the graph's
    const { version: _, ...config } = (options ?? {}) as Record<string, unknown>;
    yield* await this.graph.stream(input, config);
  }
}

/**
 * Runs `graph` as LangGraph Server does for the `events` stream mode (langgraph-api `streamState`): with
 * `streamEvents` v2 and the other stream modes in `options.streamMode`. Yields the graph's stream parts exactly
 * as `graph.stream(input, options)` would (they arrive as the root run's `on_chain_stream` events) and hands
 * every other event to `onEvent`, in order with them. Only for runs that asked for `events`: the callbacks it
 * adds cost time on every step.
 */
export async function* streamWithEvents(
  graph: RunnableGraph,
  input: unknown,
  options: Record<string, unknown>,
  onEvent: (event: StreamEvent) => void,
): AsyncGenerator<unknown> {
  let root: string | undefined;
  for await (const event of new StreamingGraph(graph).streamEvents(input, { ...options, version: 'v2' })) {
    root ??= event.run_id; // the first event is the root graph's on_chain_start
    if (event.event === 'on_chain_stream' && event.run_id === root) yield (event.data as { chunk: unknown }).chunk;
    else if (!event.tags?.includes('langsmith:hidden')) onEvent(event);
  }
}
