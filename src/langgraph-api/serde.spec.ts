import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';

import { toWire } from './serde';

describe('toWire', () => {
  it('turns messages into LangGraph Server dicts and leaves plain JSON as it is', () => {
    const wire = toWire({
      messages: [
        new HumanMessage({ content: 'hi', id: 'h1' }),
        new AIMessage({ content: '', id: 'a1', tool_calls: [{ name: 'calculator', args: { expression: '1+1' }, id: 'c1' }] }),
        new ToolMessage({ content: '2', tool_call_id: 'c1', name: 'calculator' }),
      ],
      n: 1,
      when: new Date('2026-01-02T03:04:05.000Z'),
      nested: { list: [1, 'a', null], skip: undefined },
    }) as { messages: Array<Record<string, unknown>>; n: number; when: string; nested: Record<string, unknown> };
    expect(wire.messages[0]).toMatchObject({ type: 'human', content: 'hi', id: 'h1' });
    expect(wire.messages[1]).toMatchObject({ type: 'ai', tool_calls: [{ name: 'calculator', args: { expression: '1+1' }, id: 'c1' }] });
    expect(wire.messages[2]).toMatchObject({ type: 'tool', content: '2', tool_call_id: 'c1' });
    expect(wire.messages[0]).not.toHaveProperty('lc');
    expect(wire.n).toBe(1);
    expect(wire.when).toBe('2026-01-02T03:04:05.000Z');
    expect(wire.nested).toEqual({ list: [1, 'a', null] });
  });
});
