import { Annotation, type LangGraphRunnableConfig, START, StateGraph } from '@langchain/langgraph';

/** Echoes the configurable keys a client can set by header or body (not the server's own), sorted. */
const State = Annotation.Root({ seen: Annotation<Record<string, unknown>> });

export const graph = new StateGraph(State)
  .addNode('echo', (_: typeof State.State, config: LangGraphRunnableConfig) => {
    const configurable = config.configurable ?? {};
    const picked = Object.keys(configurable)
      .filter((k) => k.startsWith('x-my-') || k === 'locale' || k === 'x-api-key')
      .sort();
    return { seen: Object.fromEntries(picked.map((k) => [k, configurable[k]])) };
  })
  .addEdge(START, 'echo')
  .compile();
