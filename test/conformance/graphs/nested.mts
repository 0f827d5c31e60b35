import { Annotation, END, interrupt, START, StateGraph } from '@langchain/langgraph';

/** A graph whose subgraph pauses: `forecast` (a subgraph) asks which city when none is known, then reports. */
const State = Annotation.Root({
  topic: Annotation<string>(),
  city: Annotation<string | undefined>(),
  summary: Annotation<string | undefined>(),
});
const ForecastState = Annotation.Root({
  topic: Annotation<string>(),
  city: Annotation<string | undefined>(),
  summary: Annotation<string | undefined>(),
});

function ask(state: typeof ForecastState.State) {
  if (state.city) return {};
  const city = interrupt({ question: 'which city?' }) as string;
  return { city };
}

function write(state: typeof ForecastState.State) {
  return { summary: `${state.topic} in ${state.city}: sunny` };
}

const forecast = new StateGraph(ForecastState)
  .addNode('ask', ask)
  .addNode('write', write)
  .addEdge(START, 'ask')
  .addEdge('ask', 'write')
  .addEdge('write', END)
  .compile();

function route(state: typeof State.State) {
  return { topic: state.topic?.trim() || 'weather' };
}

export const graph = new StateGraph(State)
  .addNode('route', route)
  .addNode('forecast', forecast)
  .addEdge(START, 'route')
  .addEdge('route', 'forecast')
  .addEdge('forecast', END)
  .compile();
