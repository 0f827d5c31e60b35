import { apiChunkOf } from './run-stream-shapes';
import { MessagesAccumulator } from './run-wire';

const config = (id: string) => ({ configurable: { thread_id: 't1', checkpoint_ns: '', checkpoint_id: id, __pregel_x: 1 }, callbacks: {} });

describe('LangGraph run stream shapes', () => {
  it('a debug checkpoint names itself and its parent, with parent_config and no internals', () => {
    const chunk = { type: 'checkpoint', payload: { config: config('c2'), parentConfig: config('c1'), tasks: [], values: {} } };
    const out = apiChunkOf('debug', chunk) as { payload: Record<string, any> };
    expect(out.payload.checkpoint).toEqual({ thread_id: 't1', checkpoint_id: 'c2', checkpoint_ns: '', checkpoint_map: null });
    expect(out.payload.parent_checkpoint).toMatchObject({ checkpoint_id: 'c1' });
    expect(out.payload.parent_config.configurable).toEqual({ thread_id: 't1', checkpoint_ns: '', checkpoint_id: 'c1' });
    expect(out.payload).not.toHaveProperty('parentConfig');
    expect(out.payload.config).not.toHaveProperty('callbacks');
  });

  it('the first checkpoint has no parent_config, and a null parent_checkpoint', () => {
    const out = apiChunkOf('debug', { type: 'checkpoint', payload: { config: config('c1'), tasks: [] } }) as {
      payload: Record<string, any>;
    };
    expect(out.payload.parent_checkpoint).toBeNull();
    expect(out.payload).not.toHaveProperty('parent_config');
  });

  it('a task state config becomes its checkpoint', () => {
    const task = { id: 'x', name: 'sub', state: { configurable: { thread_id: 't1', checkpoint_ns: 'sub:x' } } };
    expect(apiChunkOf('tasks', task)).toEqual({
      id: 'x',
      name: 'sub',
      checkpoint: { thread_id: 't1', checkpoint_id: null, checkpoint_ns: 'sub:x', checkpoint_map: null },
    });
  });
});

describe('MessagesAccumulator', () => {
  it('streams partials from model chunks and completes each message once it is in the state', () => {
    const acc = new MessagesAccumulator();
    expect(acc.values({ messages: [{ type: 'human', id: 'h1', content: 'hi' }] }).map((e) => e.event)).toEqual(['messages/complete']);
    const first = acc.chunk([{ type: 'ai', id: 'a1', content: 'he', tool_call_chunks: [] }, { langgraph_node: 'n' }], '');
    expect(first.map((e) => e.event)).toEqual(['messages/metadata', 'messages/partial']);
    const second = acc.chunk([{ type: 'ai', id: 'a1', content: 'llo', tool_call_chunks: [] }, {}], '');
    expect((second[0].data as Array<{ content: string }>)[0].content).toBe('hello');
    // a node's returned message is no partial: the state completes it
    expect(acc.chunk([{ type: 'tool', id: 't1', content: '4' }, {}], '')).toEqual([]);
    const done = acc.values({ messages: [{ id: 'h1' }, { type: 'ai', id: 'a1', content: 'hello' }, { type: 'tool', id: 't1' }] });
    expect(done).toEqual([
      {
        event: 'messages/complete',
        data: [
          { type: 'ai', id: 'a1', content: 'hello' },
          { type: 'tool', id: 't1' },
        ],
      },
    ]);
  });
});
