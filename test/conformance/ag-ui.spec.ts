import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';

import type { BaseEvent, Message } from '@ag-ui/client';
import { LangGraphAgent } from '@ag-ui/langgraph';

import { type ChatRequest, ScriptedModelServer } from '../support/model-server';
import { type Side, usePair } from './support/pair';

function respond(req: ChatRequest) {
  const last = req.messages.at(-1);
  if (last?.role === 'tool') return { content: `The weather: ${String(last.content)}. Enjoy the day!` };
  const text = String(last?.content ?? '');
  if (text.includes('weather')) return { toolCalls: [{ id: 'call_weather', name: 'weather', args: { city: 'Oslo' } }] };
  return { content: `Hello! You said: ${text}. How can I help?` };
}

async function runOn(side: Side, graphId: string, threadId: string, messages: Message[], forwardedProps: Record<string, unknown> = {}) {
  const agent = new LangGraphAgent({ deploymentUrl: side.url, graphId, threadId, initialMessages: messages });
  const events: BaseEvent[] = [];
  try {
    await agent.runAgent({ runId: randomUUID(), forwardedProps }, { onEvent: ({ event }) => void events.push(event) });
  } catch (err) {
    events.push({ type: 'THROWN', message: (err as Error).message } as any);
  }
  return events;
}

describe('conformance: AG-UI LangGraphAgent', () => {
  const model = new ScriptedModelServer();
  beforeAll(async () => {
    process.env.CONFORMANCE_MODEL_URL = await model.start();
    model.configure({ tokenPerChunk: true });
    model.setResponder(respond);
  });
  afterAll(() => model.stop());
  const pair = usePair('ag_ui');

  it('dump', async () => {
    const seen = await pair.both(async (side) => {
      const t = randomUUID();
      const a = await runOn(side, 'agent', t, [{ id: 'u1', role: 'user', content: 'hi there' }]);
      const b = await runOn(side, 'agent', t, [{ id: 'u1', role: 'user', content: 'hi there' }, { id: 'u2', role: 'user', content: 'weather?' }]);
      return { a, b };
    });
    writeFileSync('/tmp/agui/ours.json', JSON.stringify(seen.ours, null, 1));
    writeFileSync('/tmp/agui/ref.json', JSON.stringify(seen.reference, null, 1));
  });
});

describe('wire dump', () => {
  const model = new ScriptedModelServer();
  beforeAll(async () => {
    process.env.CONFORMANCE_MODEL_URL = await model.start();
    model.configure({ tokenPerChunk: true });
    model.setResponder(respond);
  });
  afterAll(() => model.stop());
  const pair = usePair('ag_ui_wire');
  it('wire', async () => {
    const seen = await pair.both(async (side) => {
      const thread = await side.client.threads.create();
      const out: any[] = [];
      for await (const e of side.client.runs.stream(thread.thread_id, 'agent', {
        input: { messages: [{ type: 'human', content: 'weather?', id: 'u1' }] },
        streamMode: ['events', 'values', 'updates', 'messages-tuple'] as any,
      }))
        out.push(e);
      return out;
    });
    const sum = (e: any) =>
      e.event === 'events'
        ? `events ${e.data.event} ${e.data.name} ${e.data.metadata?.langgraph_node} ${JSON.stringify(e.data.data?.chunk?.kwargs?.content ?? e.data.data?.chunk?.content ?? '')}`
        : e.event === 'messages'
          ? `messages ${e.data[0].type} ${JSON.stringify(e.data[0].content)} ${JSON.stringify(e.data[0].tool_call_chunks ?? '')}`
          : `${e.event} ${JSON.stringify(e.data).slice(0, 150)}`;
    writeFileSync('/tmp/agui/wire_ours', seen.ours.map(sum).join('\n').replace(/chatcmpl-\d+/g, 'chatcmpl-N') + '\n');
    writeFileSync('/tmp/agui/wire_ref', seen.reference.map(sum).join('\n').replace(/chatcmpl-\d+/g, 'chatcmpl-N') + '\n');
    writeFileSync('/tmp/agui/wire_ours.json', JSON.stringify(seen.ours, null, 1));
    writeFileSync('/tmp/agui/wire_ref.json', JSON.stringify(seen.reference, null, 1));
  });
});
