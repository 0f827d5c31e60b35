import { Annotation, END, START, StateGraph } from '@langchain/langgraph';

/** A factory export: the graph is built for each run's config, its one node named by `configurable.step`. */
const State = Annotation.Root({
  trail: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
});

export const graph = (config: { configurable?: { step?: string } }) => {
  const step = config.configurable?.step ?? 'plain';
  return new StateGraph(State)
    .addNode(step, () => ({ trail: [step] }))
    .addEdge(START, step)
    .addEdge(step, END)
    .compile();
};
