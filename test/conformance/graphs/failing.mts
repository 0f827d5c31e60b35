import { MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';

/** An error class of the graph's own, thrown by its node: a client sees its name and message. */
class QuotaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QuotaError';
  }
}

export const graph = new StateGraph(MessagesAnnotation)
  .addNode('charge', () => {
    throw new QuotaError('quota of 3 reports reached');
  })
  .addEdge(START, 'charge')
  .compile();
