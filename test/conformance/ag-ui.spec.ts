import { randomUUID } from 'node:crypto';

import type { BaseEvent, Message, ResumeEntry, State } from '@ag-ui/client';
import { LangGraphAgent } from '@ag-ui/langgraph';

import { type ChatRequest, ScriptedModelServer, type ScriptedReply } from '../support/model-server';
import { normalize, type Side, usePair } from './support/pair';

/**
 * CopilotKit's AG-UI adapter for LangGraph (`LangGraphAgent`, over the LangGraph SDK: threads, assistants, schemas,
 * `runs.stream` with the events / values / updates / messages-tuple modes, `getState`, interrupts and resumes)
 * against this service and against the reference server, on the same graphs: the AG-UI events a client sees.
 */

/** The scripted model: asked about the weather it calls the tool, given the tool's result it reports it, else it echoes. */
function reply(req: ChatRequest): ScriptedReply {
  const last = req.messages.at(-1);
  if (last?.role === 'tool') return { content: `The weather: ${String(last.content)}. Enjoy the day!` };
  const text = String(last?.content ?? '');
  if (text.includes('weather')) return { toolCalls: [{ id: 'call_weather', name: 'weather', args: { city: 'Oslo' } }] };
  return { content: `Hello! You said: ${text}. How can I help?` };
}

interface Turn {
  messages: Message[];
  state?: State;
  resume?: ResumeEntry[];
  forwardedProps?: Record<string, unknown>;
}

/** One AG-UI run of `graphId` on `threadId` through a fresh adapter, as a CopilotKit runtime makes it: its events. */
async function runOn(side: Side, graphId: string, threadId: string, turn: Turn): Promise<BaseEvent[]> {
  const agent = new LangGraphAgent({
    deploymentUrl: side.url,
    graphId,
    threadId,
    initialMessages: turn.messages,
    initialState: turn.state,
  });
  const events: BaseEvent[] = [];
  await agent.runAgent(
    { runId: randomUUID(), resume: turn.resume, forwardedProps: turn.forwardedProps },
    { onEvent: ({ event }) => void events.push(event) },
  );
  return events;
}

/**
 * What to compare of an event: all of it but its timestamp and `rawEvent` (the LangGraph event it came from, whose
 * metadata carries each deployment's own keys — host, version, API URL; runs.spec.ts compares the streams
 * themselves). A RAW event (a LangGraph event passed on) as what the adapter reads of it: kind, name, node, chunk.
 */
function comparable(events: BaseEvent[]): unknown {
  const shown = events.map((e) => {
    const { timestamp: _t, rawEvent: _r, ...rest } = e as BaseEvent & Record<string, unknown>;
    return rest.type === 'RAW' ? { type: 'RAW', event: rawSummary(rest.event) } : rest;
  });
  // the model's completion ids (`chatcmpl-<n>`) count the scripted model's answers, which both servers share
  const text = JSON.stringify(shown).replace(/chatcmpl-\d+/g, 'chatcmpl-N');
  // interrupt ids are hashes of their checkpoint namespace, which holds the task's id
  return normalize(JSON.parse(text.replace(/\b[0-9a-f]{32}\b/g, '<hex>')));
}

function rawSummary(raw: unknown): unknown {
  if (Array.isArray(raw)) {
    const [message, meta] = raw as [Record<string, unknown>, Record<string, unknown>];
    return { tuple: message?.type, content: message?.content, tool_call_chunks: message?.tool_call_chunks, node: meta?.langgraph_node };
  }
  const e = raw as { event?: string; name?: string; metadata?: Record<string, unknown>; data?: { chunk?: Record<string, unknown> } };
  return {
    event: e.event,
    name: e.name,
    node: e.metadata?.langgraph_node,
    content: e.data?.chunk?.content,
    tool_call_chunks: e.data?.chunk?.tool_call_chunks,
  };
}

function ofType<T = Record<string, any>>(events: BaseEvent[], type: string): T[] {
  return events.filter((e) => e.type === type) as unknown as T[];
}

const user = (id: string, content: string): Message => ({ id, role: 'user', content });

describe('conformance: AG-UI (CopilotKit LangGraphAgent)', () => {
  const model = new ScriptedModelServer();
  // before the pair starts: both servers' graphs read the model's URL from their environment
  beforeAll(async () => {
    process.env.CONFORMANCE_MODEL_URL = await model.start();
    model.configure({ tokenPerChunk: true });
    model.setResponder(reply);
  });
  afterAll(async () => {
    delete process.env.CONFORMANCE_MODEL_URL;
    await model.stop();
  });
  const pair = usePair('ag_ui');

  it('text streams as TEXT_MESSAGE_START / CONTENT (one per model token) / END, between the run and step events', async () => {
    const seen = await pair.both((side) => runOn(side, 'agent', randomUUID(), { messages: [user('u1', 'hi there')] }));
    const deltas = ofType(seen.ours, 'TEXT_MESSAGE_CONTENT').map((e) => e.delta);
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.join('')).toBe('Hello! You said: hi there. How can I help?');
    expect(seen.ours.map((e) => e.type)).toEqual(
      expect.arrayContaining(['RUN_STARTED', 'STEP_STARTED', 'TEXT_MESSAGE_END', 'RUN_FINISHED']),
    );
    expect(comparable(seen.ours)).toEqual(comparable(seen.reference));
  });

  it('a tool call: TOOL_CALL_START / ARGS / END with the model name and arguments, then its TOOL_CALL_RESULT', async () => {
    const seen = await pair.both((side) => runOn(side, 'agent', randomUUID(), { messages: [user('u1', 'weather?')] }));
    expect(ofType(seen.ours, 'TOOL_CALL_START').map((e) => e.toolCallName)).toEqual(['weather']);
    expect(
      JSON.parse(
        ofType(seen.ours, 'TOOL_CALL_ARGS')
          .map((e) => e.delta)
          .join(''),
      ),
    ).toEqual({ city: 'Oslo' });
    expect(ofType(seen.ours, 'TOOL_CALL_RESULT').map((e) => e.content)).toEqual(['Oslo: 21 degrees, sunny']);
    expect(
      ofType(seen.ours, 'TEXT_MESSAGE_CONTENT')
        .map((e) => e.delta)
        .join(''),
    ).toBe('The weather: Oslo: 21 degrees, sunny. Enjoy the day!');
    expect(comparable(seen.ours)).toEqual(comparable(seen.reference));
  });

  it('state snapshots: STATE_SNAPSHOT and MESSAGES_SNAPSHOT hold the thread state as the reference shows it', async () => {
    const seen = await pair.both(async (side) => {
      const events = await runOn(side, 'agent', randomUUID(), { messages: [user('u1', 'weather?')] });
      return { states: ofType(events, 'STATE_SNAPSHOT'), messages: ofType(events, 'MESSAGES_SNAPSHOT') };
    });
    const final = seen.ours.messages.at(-1)!.messages as Array<Record<string, any>>;
    expect(final.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(final[1].toolCalls).toEqual([
      { id: 'call_weather', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
    ]);
    expect(seen.ours.states.at(-1)!.snapshot.messages).toHaveLength(4);
    expect(comparable(seen.ours.states as never)).toEqual(comparable(seen.reference.states as never));
    expect(comparable(seen.ours.messages as never)).toEqual(comparable(seen.reference.messages as never));
  });

  it('a second turn on the same thread carries the first turn', async () => {
    const seen = await pair.both(async (side) => {
      const threadId = randomUUID();
      const first = await runOn(side, 'agent', threadId, { messages: [user('u1', 'hi there')] });
      // what the client holds after the first turn, as CopilotKit sends it back with the new message
      const held = ofType(first, 'MESSAGES_SNAPSHOT').at(-1)!.messages as Message[];
      const second = await runOn(side, 'agent', threadId, { messages: [...held, user('u2', 'and again')] });
      return { first, second };
    });
    const final = ofType(seen.ours.second, 'MESSAGES_SNAPSHOT').at(-1)!.messages as Array<Record<string, any>>;
    expect(final.map((m) => [m.role, m.content])).toEqual([
      ['user', 'hi there'],
      ['assistant', 'Hello! You said: hi there. How can I help?'],
      ['user', 'and again'],
      ['assistant', 'Hello! You said: and again. How can I help?'],
    ]);
    expect(comparable([...seen.ours.first, ...seen.ours.second])).toEqual(comparable([...seen.reference.first, ...seen.reference.second]));
  });

  it("a graph's own error: RUN_ERROR with its message, and the adapter's run fails", async () => {
    const seen = await pair.both(async (side) => {
      const events: BaseEvent[] = [];
      const agent = new LangGraphAgent({
        deploymentUrl: side.url,
        graphId: 'failing',
        threadId: randomUUID(),
        initialMessages: [user('u1', 'report')],
      });
      const failure = await agent.runAgent({ runId: randomUUID() }, { onEvent: ({ event }) => void events.push(event) }).then(
        () => 'finished',
        (err: Error) => err.message,
      );
      return { events, failure };
    });
    expect(ofType(seen.ours.events, 'RUN_ERROR').map((e) => e.message)).toEqual(['quota of 3 reports reached']);
    expect(seen.ours.events.map((e) => e.type)).not.toContain('RUN_FINISHED');
    expect(comparable(seen.ours.events)).toEqual(comparable(seen.reference.events));
    // the adapter itself sends STEP_FINISHED after its RUN_ERROR, which @ag-ui/client refuses: the run fails on both
    expect(seen.ours.failure).toMatch(/already errored/);
    expect(seen.ours.failure).toEqual(seen.reference.failure);
  });

  it('an interrupt: the on_interrupt event ends the run; resuming it (resume entry, or the legacy command) finishes the graph', async () => {
    const seen = await pair.both(async (side) => {
      const turn = { messages: [user('u1', 'may I?')], state: { ask: true } };
      const threadId = randomUUID();
      const paused = await runOn(side, 'chat', threadId, turn);
      const interruptId = (ofType(paused, 'CUSTOM')[0]?.rawEvent as { id?: string } | undefined)?.id ?? '';
      const resumed = await runOn(side, 'chat', threadId, { ...turn, resume: [{ interruptId, status: 'resolved', payload: 'yes' }] });
      const legacyThread = randomUUID();
      await runOn(side, 'chat', legacyThread, turn);
      const legacy = await runOn(side, 'chat', legacyThread, { ...turn, forwardedProps: { command: { resume: 'ok' } } });
      return { paused, resumed, legacy };
    });
    const custom = ofType(seen.ours.paused, 'CUSTOM');
    expect(custom.map((e) => [e.name, e.value])).toEqual([['on_interrupt', JSON.stringify({ question: 'approve?' })]]);
    expect(seen.ours.paused.at(-1)!.type).toBe('RUN_FINISHED');
    expect(ofType(seen.ours.resumed, 'STATE_SNAPSHOT').at(-1)!.snapshot).toMatchObject({ approved: 'yes' });
    expect(ofType(seen.ours.legacy, 'STATE_SNAPSHOT').at(-1)!.snapshot).toMatchObject({ approved: 'ok' });
    const answer = (ofType(seen.ours.resumed, 'MESSAGES_SNAPSHOT').at(-1)!.messages as Array<Record<string, any>>).at(-1);
    expect(answer).toMatchObject({ role: 'assistant', content: 'you said: may I?' });
    expect(comparable(seen.ours.paused)).toEqual(comparable(seen.reference.paused));
    expect(comparable(seen.ours.resumed)).toEqual(comparable(seen.reference.resumed));
    expect(comparable(seen.ours.legacy)).toEqual(comparable(seen.reference.legacy));
  });
});
