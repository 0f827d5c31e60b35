import path from 'node:path';

import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { RemoteGraph } from '@langchain/langgraph/remote';
import { Client } from '@langchain/langgraph-sdk';

import { useService } from '../support/service-fixture';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'graphs');

/** `RemoteGraph` (`@langchain/langgraph/remote`): a graph served by this service used like a local compiled graph. */
describe('LangGraph API: RemoteGraph', () => {
  const svc = useService('lgremote', { env: { LANGGRAPH_CONFIG: path.join(FIXTURES, 'langgraph.runs.json') } });
  let client: Client;
  let echo: RemoteGraph;

  beforeAll(() => {
    client = new Client({ apiUrl: svc.url, callerOptions: { maxRetries: 0 } });
    echo = new RemoteGraph({ graphId: 'echo', client });
  });

  const textsOf = (values: unknown) =>
    (values as { messages: Array<{ content: unknown }> }).messages.map((m) => (typeof m.content === 'string' ? m.content : ''));

  it('invoke, stream, getState and updateState on a thread', async () => {
    const thread = await client.threads.create();
    const config = { configurable: { thread_id: thread.thread_id } };

    const values = await echo.invoke({ messages: [new HumanMessage('one')] }, config);
    expect(textsOf(values)).toEqual(['one', 'echo #1: one']);

    const chunks: unknown[] = [];
    for await (const chunk of await echo.stream({ messages: [new HumanMessage('two')] }, { ...config, streamMode: 'updates' })) {
      chunks.push(chunk);
    }
    expect(chunks).toHaveLength(1);
    expect(textsOf((chunks[0] as { respond: unknown }).respond)).toEqual(['echo #2: two']);

    const state = await echo.getState(config);
    expect(textsOf(state.values)).toEqual(['one', 'echo #1: one', 'two', 'echo #2: two']);
    expect(state.next).toEqual([]);
    expect(state.config.configurable?.checkpoint_id).toEqual(expect.any(String));

    const updated = await echo.updateState(config, { messages: [new AIMessage('written from outside')] }, 'respond');
    expect(updated.configurable?.checkpoint_id).toEqual(expect.any(String));
    expect(updated.configurable?.checkpoint_id).not.toBe(state.config.configurable?.checkpoint_id);
    const after = await echo.getState(config);
    expect(textsOf(after.values).at(-1)).toBe('written from outside');
  });

  it('invoke without a thread runs statelessly', async () => {
    const values = await echo.invoke({ messages: [new HumanMessage('solo')] });
    expect(textsOf(values)).toEqual(['solo', 'echo #1: solo']);
  });

  it('an unknown graph fails with the 404 of the API', async () => {
    const missing = new RemoteGraph({ graphId: 'no-such-graph', client });
    await expect(missing.invoke({ messages: [new HumanMessage('x')] })).rejects.toMatchObject({ status: 404 });
  });
});
