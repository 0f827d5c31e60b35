import { type Side, usePair } from './support/pair';

/** A graph export that is a factory of the run's config, as LangGraph Platform builds it per run. */
describe('conformance: dynamic graphs', () => {
  const pair = usePair('dynamic_graphs');

  async function updatesOf({ client }: Side, assistantId: string, config?: { configurable: Record<string, unknown> }) {
    const nodes: string[] = [];
    for await (const e of client.runs.stream(null, assistantId, { input: {}, config, streamMode: ['updates'] })) {
      if (e.event === 'updates') nodes.push(...Object.keys(e.data as object));
    }
    return nodes;
  }

  it("builds the graph from the run's config, then the assistant's", async () => {
    const seen = await pair.both(async (side) => {
      const plain = await side.client.assistants.create({ graphId: 'per-config' });
      const named = await side.client.assistants.create({ graphId: 'per-config', config: { configurable: { step: 'named' } } });
      return {
        plain: await updatesOf(side, plain.assistant_id),
        fromRun: await updatesOf(side, plain.assistant_id, { configurable: { step: 'run' } }),
        fromAssistant: await updatesOf(side, named.assistant_id),
      };
    });
    expect(seen.ours).toEqual({ plain: ['plain'], fromRun: ['run'], fromAssistant: ['named'] });
    expect(seen.ours).toEqual(seen.reference);
  });

  it("updates a thread's state as a node of the graph its assistant's config builds", async () => {
    const seen = await pair.both(async ({ client }) => {
      const named = await client.assistants.create({ graphId: 'per-config', config: { configurable: { step: 'named' } } });
      const thread = await client.threads.create({ graphId: 'per-config' });
      await client.runs.wait(thread.thread_id, named.assistant_id, { input: {} });
      await client.threads.updateState(thread.thread_id, { values: { trail: ['edited'] }, asNode: 'named' });
      return (await client.threads.getState(thread.thread_id)).values;
    });
    expect(seen.ours).toEqual({ trail: ['named', 'edited'] });
    expect(seen.ours).toEqual(seen.reference);
  });
});
