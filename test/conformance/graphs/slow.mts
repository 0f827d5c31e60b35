import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { Annotation, END, messagesStateReducer, START, StateGraph } from '@langchain/langgraph';

/** A chat graph that takes its time: `work` waits `delay_ms` (stopped early when the run is cancelled), then answers. */
const State = Annotation.Root({
  messages: Annotation<BaseMessage[]>({ reducer: messagesStateReducer, default: () => [] }),
  delay_ms: Annotation<number | undefined>(),
});

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('cancelled'));
    });
  });
}

async function work(state: typeof State.State, config: LangGraphRunnableConfig) {
  await pause(state.delay_ms ?? 0, config.signal);
  const last = state.messages.at(-1);
  const text = typeof last?.content === 'string' ? last.content : '';
  return { messages: [new AIMessage({ id: `answer-${state.messages.length}`, content: `done: ${text}` })] };
}

export const graph = new StateGraph(State).addNode('work', work).addEdge(START, 'work').addEdge('work', END).compile();
