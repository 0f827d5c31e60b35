import { END, START, StateGraph } from '@langchain/langgraph';
import { z } from 'zod/v3';

/** A plain zod v3 state with a config schema. */
const State = z.object({
  log: z.array(z.string()).default([]),
  attempts: z.number().int().default(0),
});

const Config = z.object({ retries: z.number().int().min(0).max(5) });

export const graph = new StateGraph(State, Config)
  .addNode('step', (s: z.infer<typeof State>) => ({ log: [...s.log, `attempt ${s.attempts + 1}`], attempts: s.attempts + 1 }))
  .addEdge(START, 'step')
  .addEdge('step', END)
  .compile();
