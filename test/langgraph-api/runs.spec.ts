import path from 'node:path';

import { Client } from '@langchain/langgraph-sdk';

import { systemAssistantId } from '../../src/langgraph-api/assistants/assistants.service';
import { SCRIPTED_LLM, useService } from '../support/service-fixture';

const T1 = 'tenant-one-key-0123456789';
const T2 = 'tenant-two-key-0123456789';
const FIXTURES = path.join(__dirname, '..', 'fixtures', 'graphs');

/** The HTTP status an SDK call failed with (the SDK throws on non-2xx). */
async function statusOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (e) {
    return (e as { status?: number }).status ?? -1;
  }
  return 200;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of it) out.push(e);
  return out;
}

const human = (content: string) => ({ messages: [{ role: 'user', content }] });

/** Runs of the LangGraph Server API driven by the official SDK Client (in-process queue). */
describe('LangGraph API: runs (official SDK)', () => {
  const svc = useService('lgruns', {
    env: { ...SCRIPTED_LLM, API_KEYS: `t1:${T1},t2:${T2}`, LANGGRAPH_CONFIG: path.join(FIXTURES, 'langgraph.runs.json') },
    model: { resetEach: true },
  });
  let c1: Client;
  let c2: Client;

  beforeAll(() => {
    c1 = new Client({ apiUrl: svc.url, apiKey: T1, callerOptions: { maxRetries: 0 } });
    c2 = new Client({ apiUrl: svc.url, apiKey: T2, callerOptions: { maxRetries: 0 } });
  });

  it('wait: the built-in react agent with a calculator tool call returns the final values', async () => {
    svc.model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '6 * 7' } }] }, { content: '6 times 7 is 42.' });
    const thread = await c1.threads.create();
    const values = (await c1.runs.wait(thread.thread_id, 'react', { input: human('What is 6 times 7?') })) as { messages: any[] };
    const types = values.messages.map((m) => m.type);
    expect(types[0]).toBe('human');
    expect(types).toContain('tool');
    expect(values.messages.at(-1)).toMatchObject({ type: 'ai', content: '6 times 7 is 42.' });
    const t = await c1.threads.get(thread.thread_id);
    expect(t).toMatchObject({ status: 'idle', metadata: { assistant_id: systemAssistantId('react'), graph_id: 'react' } });
    const runs = await c1.runs.list(thread.thread_id);
    expect(runs).toEqual([
      expect.objectContaining({ thread_id: thread.thread_id, assistant_id: systemAssistantId('react'), status: 'success' }),
    ]);
  });

  it('wait on a custom graph with the raw input, and stateless /runs/wait', async () => {
    const thread = await c1.threads.create();
    const values = (await c1.runs.wait(thread.thread_id, 'echo', { input: human('hi') })) as { messages: any[] };
    expect(values.messages.at(-1)).toMatchObject({ type: 'ai', content: 'echo #1: hi' });
    const stateless = (await c1.runs.wait(null, 'echo', { input: human('once') })) as { messages: any[] };
    expect(stateless.messages.at(-1)).toMatchObject({ content: 'echo #1: once' });
  });

  it('stream: metadata first, then values / updates / messages-tuple / custom / debug events', async () => {
    const thread = await c1.threads.create();
    let created: string | undefined;
    const events = await collect(
      c1.runs.stream(thread.thread_id, 'hitl', {
        input: human('go'),
        streamMode: ['values', 'updates', 'custom', 'debug'],
        onRunCreated: (m) => (created = m.run_id),
      }),
    );
    expect(events[0]).toMatchObject({ event: 'metadata', data: { run_id: created, attempt: 1 } });
    const names = new Set(events.map((e) => e.event));
    for (const n of ['values', 'updates', 'custom', 'debug']) expect(names).toContain(n);
    expect(events.find((e) => e.event === 'custom')?.data).toEqual({ step: 'asking' });

    svc.model.enqueue({ content: 'Hello there.' });
    const t2 = await c1.threads.create();
    const chat = await collect(c1.runs.stream(t2.thread_id, 'react', { input: human('Say hello'), streamMode: 'messages-tuple' }));
    const tuples = chat.filter((e) => e.event === 'messages');
    expect(tuples.length).toBeGreaterThan(0);
    const [message, meta] = tuples[0].data as [any, any];
    expect(typeof message.content).toBe('string');
    expect(meta).toHaveProperty('langgraph_node');
  });

  it('interrupt() ends the run interrupted; a command resumes it', async () => {
    const thread = await c1.threads.create();
    const first = (await c1.runs.wait(thread.thread_id, 'hitl', { input: human('start') })) as Record<string, unknown>;
    expect(first.__interrupt__).toEqual([expect.objectContaining({ value: { question: 'proceed?' } })]);
    const t = await c1.threads.get(thread.thread_id);
    expect(t.status).toBe('interrupted');
    expect(Object.values(t.interrupts ?? {}).flat()).toHaveLength(1);
    const [run] = await c1.runs.list(thread.thread_id);
    expect(run.status).toBe('interrupted');

    const done = (await c1.runs.wait(thread.thread_id, 'hitl', { command: { resume: 'yes' } })) as { messages: any[]; answer: string };
    expect(done.answer).toBe('yes');
    expect(done.messages.at(-1)).toMatchObject({ content: 'answer was yes' });
    expect((await c1.threads.get(thread.thread_id)).status).toBe('idle');
  });

  it('interrupt_before pauses before the node', async () => {
    const thread = await c1.threads.create();
    await c1.runs.wait(thread.thread_id, 'echo', { input: human('x'), interruptBefore: ['respond'] });
    const state = await c1.threads.getState(thread.thread_id);
    expect(state.next).toEqual(['respond']);
    const [run] = await c1.runs.list(thread.thread_id);
    expect(run.status).toBe('interrupted');
    const values = (await c1.runs.wait(thread.thread_id, 'echo', { input: null })) as { messages: any[] };
    expect(values.messages.at(-1)).toMatchObject({ content: 'echo #1: x' });
  });

  it('background create, get, join; join-stream with Last-Event-ID replays after that id', async () => {
    const thread = await c1.threads.create();
    const run = await c1.runs.create(thread.thread_id, 'slow', { input: { ms: 100 }, streamMode: ['custom', 'values'] });
    expect(run).toMatchObject({ thread_id: thread.thread_id, assistant_id: systemAssistantId('slow'), multitask_strategy: 'reject' });
    expect(['pending', 'running']).toContain(run.status);
    const all = await collect(c1.runs.joinStream(thread.thread_id, run.run_id));
    const ticks = all.filter((e) => e.event === 'custom');
    expect(ticks).toHaveLength(10);
    const third = all.find((e) => e.event === 'custom' && (e.data as any).tick === 3) as { id?: string };
    expect(third.id).toBeTruthy();
    const after = await collect(c1.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: third.id }));
    expect(after.filter((e) => e.event === 'custom').map((e) => (e.data as any).tick)).toEqual([4, 5, 6, 7, 8, 9, 10]);
    expect(await c1.runs.join(thread.thread_id, run.run_id)).toMatchObject({ ticks: 10 });
    expect(await c1.runs.get(thread.thread_id, run.run_id)).toMatchObject({ status: 'success' });
  });

  it('cancel (wait) ends a running run interrupted; delete removes it', async () => {
    const thread = await c1.threads.create();
    const run = await c1.runs.create(thread.thread_id, 'slow', { input: { ms: 300 } });
    await c1.runs.cancel(thread.thread_id, run.run_id, true);
    expect(await c1.runs.get(thread.thread_id, run.run_id)).toMatchObject({ status: 'interrupted' });
    await c1.runs.delete(thread.thread_id, run.run_id);
    expect(await statusOf(c1.runs.get(thread.thread_id, run.run_id))).toBe(404);
  });

  it('multitask strategies: reject → 409, enqueue runs after, interrupt and rollback stop the running one', async () => {
    const thread = await c1.threads.create();
    const first = await c1.runs.create(thread.thread_id, 'slow', { input: { ms: 200 } });
    expect(await statusOf(c1.runs.create(thread.thread_id, 'slow', { input: { ms: 1 } }))).toBe(409);
    const queued = await c1.runs.create(thread.thread_id, 'slow', { input: { ms: 1 }, multitaskStrategy: 'enqueue' });
    await c1.runs.join(thread.thread_id, queued.run_id);
    expect(await c1.runs.get(thread.thread_id, first.run_id)).toMatchObject({ status: 'success' });
    expect(await c1.runs.get(thread.thread_id, queued.run_id)).toMatchObject({ status: 'success' });

    const running = await c1.runs.create(thread.thread_id, 'slow', { input: { ms: 300 }, multitaskStrategy: 'enqueue' });
    const next = await c1.runs.create(thread.thread_id, 'slow', { input: { ms: 1 }, multitaskStrategy: 'interrupt' });
    await c1.runs.join(thread.thread_id, next.run_id);
    expect(await c1.runs.get(thread.thread_id, running.run_id)).toMatchObject({ status: 'interrupted' });

    const doomed = await c1.runs.create(thread.thread_id, 'slow', { input: { ms: 300 }, multitaskStrategy: 'enqueue' });
    const after = await c1.runs.create(thread.thread_id, 'slow', { input: { ms: 1 }, multitaskStrategy: 'rollback' });
    await c1.runs.join(thread.thread_id, after.run_id);
    expect(await statusOf(c1.runs.get(thread.thread_id, doomed.run_id))).toBe(404);
  });

  it('errors: unknown thread or assistant → 404, bad body → 422, another tenant’s thread → 404', async () => {
    expect(await statusOf(c1.runs.wait('no-such-thread', 'echo', { input: human('x') }))).toBe(404);
    const thread = await c1.threads.create();
    expect(await statusOf(c1.runs.wait(thread.thread_id, 'no-such-assistant', { input: human('x') }))).toBe(404);
    const bad = await svc.http('POST', `/threads/${thread.thread_id}/runs/wait`, { assistant_id: 'echo', stream_mode: 'nonsense' });
    expect(bad.status).toBe(401); // no key: the guard answers first
    const res = await fetch(`${svc.url}/threads/${thread.thread_id}/runs/wait`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': T1 },
      body: JSON.stringify({ assistant_id: 'echo', stream_mode: 'nonsense' }),
    });
    expect(res.status).toBe(422);
    expect(await statusOf(c2.runs.wait(thread.thread_id, 'echo', { input: human('x') }))).toBe(404);
    expect(await statusOf(c2.runs.list(thread.thread_id))).toBe(404);
    const created = await c1.runs.create(thread.thread_id, 'echo', { input: human('x'), ifNotExists: 'reject' });
    expect(await statusOf(c2.runs.get(thread.thread_id, created.run_id))).toBe(404);
    const fresh = await c1.runs.wait('brand-new-thread', 'echo', { input: human('y'), ifNotExists: 'create' });
    expect(fresh).toHaveProperty('messages');
  });
});
