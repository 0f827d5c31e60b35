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
