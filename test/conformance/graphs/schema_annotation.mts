import type { BaseMessage } from '@langchain/core/messages';
import { Annotation, END, messagesStateReducer, START, StateGraph } from '@langchain/langgraph';

/** `Annotation` states (types only in the source), a context annotation, and an `Annotation` subgraph node. */
const Draft = Annotation.Root({
  outline: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  tone: Annotation<'formal' | 'casual'>(),
});

const drafting = new StateGraph(Draft)
  .addNode('plan', (s: typeof Draft.State) => ({ outline: [`a ${s.tone} outline`] }))
  .addEdge(START, 'plan')
  .addEdge('plan', END)
  .compile();

const State = Annotation.Root({
  messages: Annotation<BaseMessage[]>({ reducer: messagesStateReducer, default: () => [] }),
  tone: Annotation<'formal' | 'casual'>(),
  words: Annotation<number | undefined>(),
  meta: Annotation<{ author: string; tags: string[] }>(),
});

const Context = Annotation.Root({ audience: Annotation<'experts' | 'everyone'>(), maxWords: Annotation<number>() });

export const graph = new StateGraph(State, Context)
  .addNode('drafting', drafting)
  .addEdge(START, 'drafting')
  .addEdge('drafting', END)
  .compile();
