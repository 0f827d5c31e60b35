import { AIMessage } from '@langchain/core/messages';
import { END, MessagesValue, ReducedValue, START, StateGraph, StateSchema } from '@langchain/langgraph';
import { z } from 'zod';

/** A `StateSchema` state: prebuilt messages, a reduced total with its own `jsonSchemaExtra`, a plain zod field. */
const State = new StateSchema({
  messages: MessagesValue,
  total: new ReducedValue(z.number().default(0), { reducer: (a: number, b: number) => a + b, jsonSchemaExtra: { unit: 'tokens' } }),
  label: z.string().optional(),
});

export const graph = new StateGraph(State)
  .addNode('count', (s: typeof State.State) => ({ messages: [new AIMessage(`seen ${s.messages.length}`)], total: 1 }))
  .addEdge(START, 'count')
  .addEdge('count', END)
  .compile();
