import { END, START, StateGraph } from '@langchain/langgraph';
import { z } from 'zod';

/**
 * Plain zod v4 states (no LangGraph registry metadata): a context schema, and a subgraph node of another zod
 * state. (Registry metadata — `withLangGraph`, `.register(registry, …)` — is left out: the conformance harness's
 * reference server, started from this repository's node_modules, does not see it; see runtime-schema.spec.ts.)
 */
const Research = z.object({ topic: z.string(), notes: z.array(z.string()).default([]) });

const research = new StateGraph(Research)
  .addNode('note', (s: z.infer<typeof Research>) => ({ notes: [...s.notes, `about ${s.topic}`] }))
  .addEdge(START, 'note')
  .addEdge('note', END)
  .compile();

const State = z.object({
  messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.string() })).default([]),
  topic: z.string().describe('what the conversation is about'),
  mood: z.enum(['calm', 'busy']).default('calm'),
});

const Context = z.object({ model: z.enum(['small', 'large']), temperature: z.number().min(0).max(2).optional() });

export const graph = new StateGraph(State, Context)
  .addNode('research', research)
  .addEdge(START, 'research')
  .addEdge('research', END)
  .compile();
