import { AIMessageChunk, HumanMessage, ToolMessage } from '@langchain/core/messages';

import { toWire } from './wire';

describe('toWire', () => {
  it('turns messages into LangGraph Server dicts, deep inside other values', () => {
    const wire = toWire({
      agent: {
        messages: [new HumanMessage({ content: 'hi', id: 'h1' }), new ToolMessage({ content: '4', tool_call_id: 'c1', name: 'calc' })],
      },
    }) as { agent: { messages: Array<Record<string, unknown>> } };
    expect(wire.agent.messages[0]).toMatchObject({ type: 'human', content: 'hi', id: 'h1', additional_kwargs: {} });
    expect(wire.agent.messages[0]).not.toHaveProperty('name');
    expect(wire.agent.messages[1]).toMatchObject({ type: 'tool', content: '4', tool_call_id: 'c1', name: 'calc' });
  });

  it('serialises message chunks of `messages` mode tuples', () => {
    const chunk = new AIMessageChunk({ content: 'Hel', id: 'a1', tool_call_chunks: [{ name: 'calc', args: '{}', id: 'c1', index: 0 }] });
    const [message, meta] = toWire([chunk, { langgraph_node: 'LlmNode', fn: () => 1 }]) as [
      Record<string, unknown>,
      Record<string, unknown>,
    ];
    expect(message).toMatchObject({ type: 'ai', content: 'Hel', id: 'a1', tool_calls: [{ name: 'calc', id: 'c1' }] });
    expect(meta).toEqual({ langgraph_node: 'LlmNode' });
    expect(JSON.parse(JSON.stringify(message))).toEqual(message);
  });

  it('drops cycles and keeps plain values', () => {
    const a: Record<string, unknown> = { n: 1, when: new Date(0) };
    a.self = a;
    expect(toWire(a)).toEqual({ n: 1, when: '1970-01-01T00:00:00.000Z' });
  });
});
