import { Annotation, START, StateGraph } from '@langchain/langgraph';

/** Answers with the run's `tier` and `region` from its runtime context (their defaults: LANGGRAPH_CONFIG). */
const State = Annotation.Root({ question: Annotation<string>(), tier: Annotation<string>(), region: Annotation<string>() });
const Context = Annotation.Root({ tier: Annotation<string>(), region: Annotation<string>() });

export const graph = new StateGraph(State, Context)
  .addNode('answer', (_state, runtime) => ({ tier: runtime.context?.tier ?? 'none', region: runtime.context?.region ?? 'none' }))
  .addEdge(START, 'answer')
  .compile();
