import type { RunnableConfig } from '@langchain/core/runnables';
import { Runnable } from '@langchain/core/runnables';
import type { StreamEvent } from '@langchain/core/tracers/log_stream';
import type { IterableReadableStream } from '@langchain/core/utils/stream';

import type { RunnableGraph } from '../core/run-types';

/**
 * An agent's graph behind LangChain's `streamEvents`: the graph (with its wrappers, e.g. endOnModelOutage) runs
 * through its own `stream`, and LangChain's event-stream callback handler (not exported by @langchain/core, so it is
 * reached through `Runnable.streamEvents`) reports every chain, model and tool of the run. `stream` hands the graph's
 * stream over as it is: another buffered layer around it would deliver each part one pull late, after the events
 * that follow it (LangGraph Server interleaves them as they happen).
 */
class StreamingGraph extends Runnable<unknown, unknown> {
  lc_namespace = ['agent_orchestrator', 'events'];

  constructor(private readonly graph: RunnableGraph) {
    super();
  }

  invoke(): Promise<unknown> {
    return Promise.reject(new Error('StreamingGraph only streams'));
  }

  override async stream(input: unknown, options?: Partial<RunnableConfig>): Promise<IterableReadableStream<unknown>> {
    // `version` is streamEvents' own option, not the graph's
    const { version: _, ...config } = (options ?? {}) as Record<string, unknown>;
    const parts = await this.graph.stream(input, config);
    // LangChain reads it as an async generator (`next` and `for await`): Pregel's stream and wrappers' generators are
    const generator =
      typeof (parts as { next?: unknown }).next === 'function'
        ? parts
        : (async function* () {
            yield* parts;
          })();
    return generator as IterableReadableStream<unknown>;
  }
}

/** the name LangGraph Server gives the root run's events: the compiled graph's (`LangGraph` unless named) */
function graphNameOf(graph: RunnableGraph): string | undefined {
  const compiled = (graph.compiled ?? graph) as { getName?: () => string };
  return typeof compiled.getName === 'function' ? compiled.getName() : undefined;
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
  // the run's own name (`runName`, for traces) is not what a client of the events sees
  const rootName = graphNameOf(graph);
  for await (const event of new StreamingGraph(graph).streamEvents(input, { ...options, version: 'v2' })) {
    root ??= event.run_id; // the first event is the root graph's on_chain_start
    if (event.event === 'on_chain_stream' && event.run_id === root) yield (event.data as { chunk: unknown }).chunk;
    else if (!event.tags?.includes('langsmith:hidden')) onEvent(event.run_id === root && rootName ? { ...event, name: rootName } : event);
  }
}
