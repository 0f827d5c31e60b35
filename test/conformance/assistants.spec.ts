import { normalize, usePair } from './support/pair';

/** System assistants and assistant errors, as a LangGraph Platform client sees them on both servers. */
describe('conformance: assistants', () => {
  const pair = usePair('assistants');

  it('each graph has one system assistant, found by search with metadata.created_by "system"', async () => {
    const seen = await pair.both(async ({ client }) => {
      const found = await client.assistants.search({ graphId: 'chat', metadata: { created_by: 'system' } });
      return found.map((a) => ({ graph_id: a.graph_id, name: a.name, metadata: a.metadata, config: a.config, version: a.version }));
    });
    expect(normalize(seen.ours)).toEqual(normalize(seen.reference));
  });
});
