import { normalize, type Side, usePair } from './support/pair';

/**
 * `/assistants/{id}/schemas` and `/subgraphs` of an `Annotation` graph, on both servers: the value types exist
 * only in the graph's TypeScript source, which each server parses with the TypeScript compiler (the reference's
 * parser, in a worker) on the first request — tens of seconds on a busy machine, hence this file's own timeouts
 * (and each server's parse timeout raised past the reference's default 30 s; both read this variable).
 */
process.env.LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS ??= '240000';

const SLOW = 300_000;

describe('conformance: assistant schemas (Annotation, from the TypeScript source)', () => {
  const pair = usePair('schemas_source');

  async function assistantOf(side: Side, graphId: string): Promise<string> {
    return (await side.client.assistants.create({ graphId })).assistant_id;
  }

  it(
    'state, input, output and config (context) schemas from the types of the Annotations',
    async () => {
      const seen = await pair.both(async (side) => side.client.assistants.getSchemas(await assistantOf(side, 'schema_annotation')));
      expect(seen.reference.state_schema).toMatchObject({ properties: { tone: { enum: ['casual', 'formal'] } } });
      expect(normalize(seen.ours)).toEqual(normalize(seen.reference));
    },
    SLOW,
  );

  it(
    "subgraphs: the subgraph's own Annotation types",
    async () => {
      const seen = await pair.both(async (side) =>
        side.client.assistants.getSubgraphs(await assistantOf(side, 'schema_annotation'), { recurse: true }),
      );
      expect(Object.keys(seen.reference)).toEqual(['drafting']);
      expect(normalize(seen.ours)).toEqual(normalize(seen.reference));
    },
    SLOW,
  );
});
