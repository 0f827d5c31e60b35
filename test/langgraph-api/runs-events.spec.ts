import path from 'node:path';

import { Client } from '@langchain/langgraph-sdk';

import { SCRIPTED_LLM, useService } from '../support/service-fixture';

const T1 = 'tenant-one-key-0123456789';
const FIXTURES = path.join(__dirname, '..', 'fixtures', 'graphs');

interface SseEvent {
  id?: string;
  event: string;
  data: any;
}

async function collect(it: AsyncIterable<unknown>): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const e of it) out.push(e as SseEvent);
  return out;
}

const human = (content: string) => ({ messages: [{ role: 'user', content }] });
const lcEvents = (events: SseEvent[]) => events.filter((e) => e.event === 'events').map((e) => e.data);

/** The `events` stream mode (LangChain streamEvents v2 objects) of the LangGraph Server API, via the official SDK. */
describe('LangGraph API: events stream mode (official SDK)', () => {
  const svc = useService('lgevents', {
    env: { ...SCRIPTED_LLM, API_KEYS: `t1:${T1}`, LANGGRAPH_CONFIG: path.join(FIXTURES, 'langgraph.runs.json') },
    model: { resetEach: true },
  });
  let c1: Client;

  beforeAll(() => {
    c1 = new Client({ apiUrl: svc.url, apiKey: T1, callerOptions: { maxRetries: 0 } });
  });

  it('streams chain, model-token and tool events together with values; the final state is right', async () => {
    svc.model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '6 * 7' } }] }, { content: '6 times 7 is 42.' });
    const thread = await c1.threads.create();
    const events = await collect(
      c1.runs.stream(thread.thread_id, 'react', { input: human('What is 6 times 7?'), streamMode: ['events', 'values'] }),
    );
    expect(events[0].event).toBe('metadata');
    const lc = lcEvents(events);
    for (const e of lc)
      expect(e).toMatchObject({ event: expect.stringMatching(/^on_/), name: expect.any(String), run_id: expect.any(String) });
    const kinds = new Set(lc.map((e) => e.event));
    for (const k of [
      'on_chain_start',
      'on_chain_end',
      'on_chat_model_start',
      'on_chat_model_stream',
      'on_chat_model_end',
      'on_tool_start',
      'on_tool_end',
    ]) {
      expect(kinds).toContain(k);
    }
    // the root graph's own stream parts are the values events, not on_chain_stream events of the root
    expect(lc[0]).toMatchObject({ event: 'on_chain_start', data: { input: expect.anything() } });
    expect(lc.filter((e) => e.event === 'on_chain_stream' && e.run_id === lc[0].run_id)).toHaveLength(0);

    const tokens = lc.filter((e) => e.event === 'on_chat_model_stream').map((e) => e.data.chunk.content as string);
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.join('')).toBe('6 times 7 is 42.');
    const tool = lc.find((e) => e.event === 'on_tool_start');
    expect(tool).toMatchObject({ name: 'calculator', metadata: expect.objectContaining({ langgraph_node: expect.any(String) }) });
    expect(JSON.stringify(tool.data.input)).toContain('6 * 7');
    expect(JSON.stringify(lc.find((e) => e.event === 'on_tool_end').data.output)).toContain('42');

    const values = events.filter((e) => e.event === 'values');
    expect(values.length).toBeGreaterThan(1);
    expect(values.at(-1)!.data.messages.at(-1)).toMatchObject({ type: 'ai', content: '6 times 7 is 42.' });
    // each values event comes after the events of the step that produced it
    expect(events.indexOf(values.at(-1)!)).toBeGreaterThan(events.findIndex((e) => e.data?.event === 'on_tool_end'));

    const state = await c1.threads.getState<{ messages: any[] }>(thread.thread_id);
    expect(state.values.messages.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'ai']);
    expect(state.values.messages.at(-1)).toMatchObject({ content: '6 times 7 is 42.' });
    expect((await c1.runs.list(thread.thread_id))[0].status).toBe('success');
  });

  it('message and event metadata name the thread by the id the client used, never the tenant-scoped checkpoint thread', async () => {
    svc.model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '6 * 7' } }] }, { content: '6 times 7 is 42.' });
    const thread = await c1.threads.create();
    const events = await collect(
      c1.runs.stream(thread.thread_id, 'react', {
        input: human('What is 6 times 7?'),
        streamMode: ['messages-tuple', 'events', 'debug'],
      }),
    );
    const messages = events.filter((e) => e.event === 'messages');
    expect(messages.length).toBeGreaterThan(1);
    for (const m of messages) expect(m.data[1]).toMatchObject({ thread_id: thread.thread_id });
    const withMetadata = lcEvents(events).filter((e) => e.metadata?.thread_id !== undefined);
    expect(withMetadata.length).toBeGreaterThan(0);
    for (const e of withMetadata) expect(e.metadata.thread_id).toBe(thread.thread_id);
    // the checkpoint configs of `debug` too; the internal id (`{tenant}:{thread}`) appears nowhere
    expect(events.some((e) => e.event === 'debug' && JSON.stringify(e.data).includes(`"thread_id":"${thread.thread_id}"`))).toBe(true);
    expect(JSON.stringify(events)).not.toContain(`:${thread.thread_id}`);
  });

  it('only events when only events are asked for; an interrupt still pauses the run and a command resumes it', async () => {
    const thread = await c1.threads.create();
    const first = await collect(c1.runs.stream(thread.thread_id, 'hitl', { input: human('start'), streamMode: ['events'] }));
    expect(new Set(first.map((e) => e.event))).toEqual(new Set(['metadata', 'events']));
    expect(lcEvents(first).some((e) => e.event === 'on_chain_start' && e.name === 'ask')).toBe(true);
    expect(lcEvents(first).some((e) => e.event === 'on_chain_start' && e.name === 'respond')).toBe(false);
    expect((await c1.threads.get(thread.thread_id)).status).toBe('interrupted');

    const second = await collect(c1.runs.stream(thread.thread_id, 'hitl', { command: { resume: 'yes' }, streamMode: ['events'] }));
    expect(lcEvents(second).some((e) => e.event === 'on_chain_end' && e.name === 'respond')).toBe(true);
    const state = await c1.threads.getState<{ answer: string; messages: any[] }>(thread.thread_id);
    expect(state.values.answer).toBe('yes');
    expect(state.values.messages.at(-1)).toMatchObject({ content: 'answer was yes' });
  });

  it('join-stream with Last-Event-ID replays the events after that id', async () => {
    const thread = await c1.threads.create();
    const run = await c1.runs.create(thread.thread_id, 'slow', { input: { ms: 20 }, streamMode: ['events'] });
    const all = (await collect(c1.runs.joinStream(thread.thread_id, run.run_id))).filter((e) => e.event === 'events');
    const ticks = all.filter((e) => e.data.event === 'on_chain_start' && e.data.name === 'tick');
    expect(ticks).toHaveLength(10);
    const cut = all.indexOf(ticks[3]);
    const after = (await collect(c1.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: ticks[3].id }))).filter(
      (e) => e.event === 'events',
    );
    expect(after.map((e) => e.id)).toEqual(all.slice(cut + 1).map((e) => e.id));
    expect(after.filter((e) => e.data.event === 'on_chain_start' && e.data.name === 'tick')).toHaveLength(6);
    expect(await c1.runs.join(thread.thread_id, run.run_id)).toMatchObject({ ticks: 10 });
  });

  it('cancel stops a run streaming events: it ends interrupted before its last step', async () => {
    const thread = await c1.threads.create();
    const run = await c1.runs.create(thread.thread_id, 'slow', { input: { ms: 300 }, streamMode: ['events'] });
    for await (const e of c1.runs.joinStream(thread.thread_id, run.run_id) as AsyncIterable<SseEvent>) {
      if (e.event === 'events' && e.data.event === 'on_chain_end' && e.data.name === 'tick') break; // one step done
    }
    await c1.runs.cancel(thread.thread_id, run.run_id, true);
    expect(await c1.runs.get(thread.thread_id, run.run_id)).toMatchObject({ status: 'interrupted' });
    const rest = (await collect(c1.runs.joinStream(thread.thread_id, run.run_id))).filter((e) => e.event === 'events');
    const ticksDone = rest.filter((e) => e.data.event === 'on_chain_end' && e.data.name === 'tick').length;
    expect(ticksDone).toBeGreaterThanOrEqual(1);
    expect(ticksDone).toBeLessThan(10);
    const state = await c1.threads.getState<{ ticks: number }>(thread.thread_id);
    expect(state.values.ticks ?? 0).toBeLessThan(10);
  });
});
