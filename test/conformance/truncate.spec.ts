import { usePair } from './support/pair';

/** `POST /internal/truncate` (LANGGRAPH_TRUNCATE_ENABLED): the reference server's reset between tests. */
describe('conformance: truncate', () => {
  const pair = usePair('truncate', { env: { LANGGRAPH_TRUNCATE_ENABLED: 'true' } });

  it('empties threads, assistants and the store, keeping the system assistants', async () => {
    const seen = await pair.both(async (side) => {
      const { client } = side;
      await client.threads.create({ metadata: { mine: true } });
      await client.assistants.create({ graphId: 'chat', name: 'mine' });
      await client.store.putItem(['reset', 'me'], 'k', { v: 1 });
      const answer = await side.request('POST', '/internal/truncate', { runs: true, threads: true, assistants: true, store: true });
      return {
        answer: { status: answer.status, body: answer.body },
        threads: (await client.threads.search()).length,
        // the graphs of the conformance langgraph.json (ours also has its built-in agents)
        assistants: (await client.assistants.search({ limit: 100 }))
          .filter((a) => ['chat', 'tiers', 'per-config'].includes(a.graph_id))
          .map((a) => a.metadata?.created_by),
        store: (await client.store.searchItems(['reset'])).items.length,
        namespaces: (await client.store.listNamespaces()).namespaces.length,
      };
    });
    expect(seen.ours).toEqual({
      answer: { status: 200, body: { ok: true } },
      threads: 0,
      assistants: ['system', 'system', 'system'],
      store: 0,
      namespaces: 0,
    });
    expect(seen.ours).toEqual(seen.reference);
  });

  it('keeps what a truncate does not name', async () => {
    const seen = await pair.both(async (side) => {
      const thread = await side.client.threads.create();
      await side.request('POST', '/internal/truncate', { store: true });
      return (await side.client.threads.get(thread.thread_id)).thread_id === thread.thread_id;
    });
    expect(seen).toEqual({ ours: true, reference: true });
  });
});
