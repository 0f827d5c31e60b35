import path from 'node:path';

import { Client } from '@langchain/langgraph-sdk';

import { useService } from '../support/service-fixture';

const T1 = 'tenant-one-key-0123456789';
const FIXTURES = path.join(__dirname, '..', 'fixtures', 'graphs');

const human = (content: string) => ({ messages: [{ role: 'user', content }] });

/** What the `configured` fixture graph saw, from the last message of a run's values. */
function seenOf(values: unknown): Record<string, unknown> {
  const messages = (values as { messages: Array<{ content: string }> }).messages;
  return JSON.parse(messages.at(-1)!.content) as Record<string, unknown>;
}

/** Run options of the LangGraph Server API beyond input / command: config, context, after_seconds, webhook. */
describe('LangGraph API: run options (official SDK)', () => {
  const svc = useService('lgrunopts', {
    env: { API_KEYS: `t1:${T1}`, LANGGRAPH_CONFIG: path.join(FIXTURES, 'langgraph.runs.json') },
  });
  let c1: Client;

  beforeAll(() => {
    c1 = new Client({ apiUrl: svc.url, apiKey: T1, callerOptions: { maxRetries: 0 } });
  });

  it("an assistant's config.configurable and context reach the graph, merged with the run's (the run wins, service keys stay)", async () => {
    const assistant = await c1.assistants.create({
      graphId: 'configured',
      config: { configurable: { model: 'from-assistant', style: 'terse' } },
      context: { locale: 'fr', tone: 'dry' },
    });
    const thread = await c1.threads.create();
    const values = await c1.runs.wait(thread.thread_id, assistant.assistant_id, {
      input: human('hi'),
      config: { configurable: { model: 'from-run', thread_id: 'hijack', tenant_id: 'other', usage_collector: 1 } },
      context: { tone: 'warm' },
    });
    const seen = seenOf(values);
    expect(seen).toMatchObject({ model: 'from-run', style: 'terse', context: { locale: 'fr', tone: 'warm' } });
    expect(seen.thread_id).not.toBe('hijack');
    expect(seen.tenant_id).toBe('t1');
    const [run] = await c1.runs.list(thread.thread_id);
    expect((run as unknown as { kwargs: unknown }).kwargs).toMatchObject({
      config: { configurable: { model: 'from-run', style: 'terse' } },
      context: { tone: 'warm' },
    });

    // the graph itself, without an assistant: only the run's own
    const plain = seenOf(await c1.runs.wait(null, 'configured', { input: human('x'), config: { configurable: { style: 'long' } } }));
    expect(plain).toMatchObject({ model: null, style: 'long' });
  });

  it('after_seconds: the run stays pending until then, then runs', async () => {
    const thread = await c1.threads.create();
    const t0 = Date.now();
    const run = await c1.runs.create(thread.thread_id, 'echo', { input: human('later'), afterSeconds: 2 });
    expect(run.status).toBe('pending');
    await new Promise((r) => setTimeout(r, 1000));
    expect((await c1.runs.get(thread.thread_id, run.run_id)).status).toBe('pending');
    const values = (await c1.runs.join(thread.thread_id, run.run_id)) as { messages: Array<{ content: string }> };
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1900);
    expect(values.messages.at(-1)?.content).toBe('echo #1: later');
    expect((await c1.runs.get(thread.thread_id, run.run_id)).status).toBe('success');
  });
});
