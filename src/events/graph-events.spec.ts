import { Annotation, END, MemorySaver, START, StateGraph } from '@langchain/langgraph';

import type { RunnableGraph } from '../core/run-types';
import { streamWithEvents } from './graph-events';

const State = Annotation.Root({ n: Annotation<number>() });

/** one node adding one; named `counter` */
function counter(): RunnableGraph {
  return new StateGraph(State)
    .addNode('add', (s) => ({ n: s.n + 1 }))
    .addEdge(START, 'add')
    .addEdge('add', END)
    .compile({ checkpointer: new MemorySaver(), name: 'counter' }) as unknown as RunnableGraph;
}

// the order of parts and events against the model's streaming is checked beside the reference server
// (test/conformance/ag-ui.spec.ts, runs-events in test/langgraph-api)
describe('streamWithEvents', () => {
  it("names the root run's events after the graph, not the run's traced name, and yields the graph's parts", async () => {
    const events: Array<{ event: string; name: string }> = [];
    const parts: unknown[] = [];
    const options = { streamMode: ['values'], runName: 'agent:run-1', configurable: { thread_id: 't1' } };
    for await (const part of streamWithEvents(counter(), { n: 0 }, options, (e) => events.push(e))) parts.push(part);
    expect(parts).toEqual([
      ['values', { n: 0 }],
      ['values', { n: 1 }],
    ]);
    expect(events[0]).toMatchObject({ event: 'on_chain_start', name: 'counter' });
    expect(events.at(-1)).toMatchObject({ event: 'on_chain_end', name: 'counter' });
    expect(events.filter((e) => e.name === 'agent:run-1')).toEqual([]);
    expect(events.some((e) => e.event === 'on_chain_start' && e.name === 'add')).toBe(true);
  });
});
