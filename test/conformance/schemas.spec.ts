import { normalize, type Side, usePair } from './support/pair';

/**
 * `/assistants/{id}/schemas` and `/assistants/{id}/subgraphs` as a client sees them on both servers, for graphs
 * that carry their schemas at run time: zod v4 and zod v3 states with config (context) schemas, a zod state with
 * LangGraph registry metadata, a `StateSchema` (both with `jsonSchemaExtra`). Graphs with an `Annotation` state,
 * whose types are read from the source by the TypeScript compiler: schemas-source.spec.ts.
 */
describe('conformance: assistant schemas (zod, StateSchema)', () => {
  const pair = usePair('schemas');

  async function assistantOf(side: Side, graphId: string): Promise<string> {
    return (await side.client.assistants.create({ graphId })).assistant_id;
  }

  it.each(['schema_zod', 'schema_zod3', 'schema_registry', 'schema_state'])(
    '%s: input, output, state, config and context schemas',
    async (graphId) => {
      const seen = await pair.both(async (side) => side.client.assistants.getSchemas(await assistantOf(side, graphId)));
      expect(seen.reference.state_schema).toBeDefined();
      expect(normalize(seen.ours)).toEqual(normalize(seen.reference));
    },
  );

  it.each([
    ['schema_registry', 'messages', { langgraph_type: 'messages' }],
    ['schema_state', 'total', { unit: 'tokens' }],
  ])('%s: the jsonSchemaExtra of %s is in its schema', async (graphId, key, extra) => {
    const seen = await pair.both(async (side) => side.client.assistants.getSchemas(await assistantOf(side, graphId)));
    const fieldOf = (s: typeof seen.ours) => (s.state_schema as { properties?: Record<string, unknown> } | null)?.properties?.[key];
    expect(fieldOf(seen.reference)).toMatchObject(extra);
    expect(fieldOf(seen.ours)).toEqual(fieldOf(seen.reference));
  });

  it('subgraphs: their schemas by namespace, with and without recurse, and of one namespace', async () => {
    const seen = await pair.both(async (side) => {
      const id = await assistantOf(side, 'schema_zod');
      return {
        top: await side.client.assistants.getSubgraphs(id),
        recursive: await side.client.assistants.getSubgraphs(id, { recurse: true }),
        one: await side.client.assistants.getSubgraphs(id, { namespace: 'research' }),
        none: await side.client.assistants.getSubgraphs(await assistantOf(side, 'schema_state')),
      };
    });
    expect(Object.keys(seen.reference.top)).toEqual(['research']);
    expect(normalize(seen.ours)).toEqual(normalize(seen.reference));
  });
});
