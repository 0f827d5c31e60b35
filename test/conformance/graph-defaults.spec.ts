import { normalize, usePair } from './support/pair';

/** LANGGRAPH_CONFIG as JSON (here from langgraph.json's `env`): each graph's default config and runtime context. */
describe('conformance: graph defaults (LANGGRAPH_CONFIG)', () => {
  const pair = usePair('graph_defaults');

  it("shows a graph's default config and context on its system assistant", async () => {
    const seen = await pair.both(async ({ client }) => {
      const found = await client.assistants.search({ metadata: { created_by: 'system' }, limit: 100 });
      return found
        .filter((a) => ['chat', 'tiers'].includes(a.graph_id))
        .map((a) => ({ graph_id: a.graph_id, config: a.config, context: a.context }))
        .sort((a, b) => a.graph_id.localeCompare(b.graph_id));
    });
    expect(seen.ours).toEqual([
      { graph_id: 'chat', config: { configurable: { tone: 'dry' } }, context: {} },
      { graph_id: 'tiers', config: {}, context: { tier: 'gold' } },
    ]);
    expect(seen.ours).toEqual(seen.reference);
  });

  it('gives a run on the graph id the default context, under what the run sends', async () => {
    const seen = await pair.both(async ({ client }) => ({
      defaults: await client.runs.wait(null, 'tiers', { input: { question: 'q' } }),
      overridden: await client.runs.wait(null, 'tiers', { input: { question: 'q' }, context: { region: 'eu' } }),
    }));
    expect(seen.ours.defaults).toMatchObject({ tier: 'gold', region: 'none' });
    expect(normalize(seen.ours)).toEqual(normalize(seen.reference));
  });

  it('names the system assistant by the uuid5 of its graph id, and finds it by either', async () => {
    const seen = await pair.both(async ({ client }) => {
      const byGraph = await client.assistants.get('tiers');
      const byId = await client.assistants.get(byGraph.assistant_id);
      return { id: byGraph.assistant_id, same: byId.graph_id === 'tiers' };
    });
    expect(seen.ours).toEqual(seen.reference);
  });
});
