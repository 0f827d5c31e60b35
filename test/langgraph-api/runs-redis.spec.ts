import path from 'node:path';

import { Client } from '@langchain/langgraph-sdk';

import { useService } from '../support/service-fixture';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'graphs');

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of it) out.push(e);
  return out;
}

/** With REDIS_URL: a BullMQ worker executes the run and its stream reaches the API through Redis streams. */
describe('LangGraph API: runs through BullMQ and Redis', () => {
  const svc = useService('lgruns_redis', { redis: true, env: { LANGGRAPH_CONFIG: path.join(FIXTURES, 'langgraph.runs.json') } });
  let client: Client;

  beforeAll(() => {
    client = new Client({ apiUrl: svc.url, callerOptions: { maxRetries: 0 } });
  });

  it('streams a queued run and resumes an interrupt with a command', async () => {
    const thread = await client.threads.create();
    const events = await collect(client.runs.stream(thread.thread_id, 'slow', { input: { ms: 20 }, streamMode: ['custom', 'updates'] }));
    expect(events[0].event).toBe('metadata');
    expect(events.filter((e) => e.event === 'custom')).toHaveLength(10);
    expect(events.filter((e) => e.event === 'updates').length).toBeGreaterThanOrEqual(10);

    const t2 = await client.threads.create();
    const paused = (await client.runs.wait(t2.thread_id, 'hitl', { input: { messages: [{ type: 'human', content: 'x' }] } })) as any;
    expect(paused.__interrupt__).toHaveLength(1);
    const done = (await client.runs.wait(t2.thread_id, 'hitl', { command: { resume: 'ok' } })) as any;
    expect(done.answer).toBe('ok');
  });

  it('after_seconds: a delayed BullMQ job, the run pending until then', async () => {
    const thread = await client.threads.create();
    const t0 = Date.now();
    const run = await client.runs.create(thread.thread_id, 'echo', {
      input: { messages: [{ role: 'user', content: 'later' }] },
      afterSeconds: 2,
    });
    // the scenario: halfway through the delay the run must still be waiting (not a wait for a condition)
    await new Promise((r) => setTimeout(r, 1000));
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe('pending');
    const values = (await client.runs.join(thread.thread_id, run.run_id)) as any;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1900);
    expect(values.messages.at(-1).content).toBe('echo #1: later');
  });
});
