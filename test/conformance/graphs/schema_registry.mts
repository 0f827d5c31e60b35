import { END, START, StateGraph } from '@langchain/langgraph';
import { registry } from '@langchain/langgraph/zod';
import { z } from 'zod';

/** A zod v4 state with LangGraph registry metadata: reducers, defaults and `jsonSchemaExtra` (`langgraph_type: "messages"`). */
type Message = { role: string; content: string };

const State = z.object({
  messages: z.array(z.object({ role: z.string(), content: z.string() })).register(registry, {
    reducer: { fn: (a: Message[], b: Message[]) => a.concat(b) },
    default: () => [],
    jsonSchemaExtra: { langgraph_type: 'messages' },
  }),
  tags: z
    .array(z.string())
    .register(registry, {
      reducer: { fn: (a: string[], b: string[]) => [...new Set([...a, ...b])] },
      default: () => [],
      jsonSchemaExtra: { kind: 'set' },
    }),
  turns: z.number().int().default(0),
});

export const graph = new StateGraph(State)
  .addNode('answer', (s: z.infer<typeof State>) => ({
    messages: [{ role: 'assistant', content: `turn ${s.turns + 1}` }],
    turns: s.turns + 1,
  }))
  .addEdge(START, 'answer')
  .addEdge('answer', END)
  .compile();
