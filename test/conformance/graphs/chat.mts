import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { Annotation, END, interrupt, messagesStateReducer, START, StateGraph } from '@langchain/langgraph';

/** A chat graph without a model: `reply` answers each human message; `ask: true` pauses for a human first. */
const State = Annotation.Root({
  messages: Annotation<BaseMessage[]>({ reducer: messagesStateReducer, default: () => [] }),
  ask: Annotation<boolean | undefined>(),
  approved: Annotation<string | undefined>(),
});

function review(state: typeof State.State) {
  if (!state.ask) return {};
  const answer = interrupt({ question: 'approve?' }) as string;
  return { approved: answer };
}

function reply(state: typeof State.State) {
  const last = state.messages.at(-1);
  const text = typeof last?.content === 'string' ? last.content : '';
  return { messages: [new AIMessage({ id: `reply-${state.messages.length}`, content: `you said: ${text}` })] };
}

export const graph = new StateGraph(State)
  .addNode('review', review)
  .addNode('reply', reply)
  .addEdge(START, 'review')
  .addEdge('review', 'reply')
  .addEdge('reply', END)
  .compile();
