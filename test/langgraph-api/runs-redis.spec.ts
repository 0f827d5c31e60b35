import path from 'node:path';

import { Client } from '@langchain/langgraph-sdk';

import { useService } from '../support/service-fixture';
import { startApp } from '../support/test-app';

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

  it('a client that drops a live stream and reconnects with Last-Event-ID (to another API process) gets the rest once', async () => {
    // the run is accepted by an API-only process and executed by the fixture's worker; the client follows it
    // from that API process, drops the stream mid-run, and reconnects through the fixture's API
    const api = await startApp({ ...svc.env, RUN_WORKER: 'false' });
    try {
      const first = new Client({ apiUrl: api.url, callerOptions: { maxRetries: 0 } });
      const thread = await first.threads.create();
      const run = await first.runs.create(thread.thread_id, 'slow', { input: { ms: 200 }, streamMode: ['custom'] });
      const seen: Array<{ id?: string; tick: number }> = [];
      for await (const e of first.runs.joinStream(thread.thread_id, run.run_id)) {
        if (e.event === 'custom') seen.push({ id: (e as { id?: string }).id, tick: (e.data as { tick: number }).tick });
        if (seen.length === 3) break; // the client goes away while the run goes on
      }
      expect(seen.map((s) => s.tick)).toEqual([1, 2, 3]);
      expect((await first.runs.get(thread.thread_id, run.run_id)).status).toBe('running');

      const rest = await collect(client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: seen[2].id }));
      expect(rest.filter((e) => e.event === 'custom').map((e) => (e.data as { tick: number }).tick)).toEqual([4, 5, 6, 7, 8, 9, 10]);
      expect(await client.runs.join(thread.thread_id, run.run_id)).toMatchObject({ ticks: 10 });
    } finally {
      await api.close();
    }
  });
});
