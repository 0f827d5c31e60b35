import { eventNameOf, graphStreamModes, publishableChunkOf, streamRequestOf } from './graph-stream';

describe('graph stream requests', () => {
  it('keeps the known modes of a run input, once each', () => {
    expect(streamRequestOf({ modes: ['updates', 'messages', 'nonsense', 'updates'], subgraphs: true })).toEqual({
      modes: ['updates', 'messages'],
      subgraphs: true,
      tokens: false,
      events: false,
    });
    expect(streamRequestOf({ modes: ['values'], events: true })).toMatchObject({ modes: ['values'], events: true });
    expect(streamRequestOf(undefined)).toBeNull();
  });

  it('always streams the modes the orchestrator needs itself', () => {
    expect(graphStreamModes(['updates', 'values'], { modes: ['custom', 'updates'] })).toEqual(['updates', 'values', 'custom']);
    expect(graphStreamModes(['updates', 'values'], null)).toEqual(['updates', 'values']);
  });

  it('names subgraph chunks as LangGraph Server does', () => {
    expect(eventNameOf('updates', [])).toBe('updates');
    expect(eventNameOf('updates', ['parent:1', 'child:2'])).toBe('updates|parent:1|child:2');
  });
});

describe('publishableChunkOf', () => {
  it('drops the run context, internal keys and callbacks from the configs of debug chunks', () => {
    const live = { tenantId: 't', runId: 'r', db: { pool: {} } };
    const chunk = {
      type: 'checkpoint',
      payload: { config: { configurable: { thread_id: 'x', run_context: live, __pregel: 1 }, callbacks: [1] } },
    };
    expect(publishableChunkOf('debug', chunk)).toEqual({ type: 'checkpoint', payload: { config: { configurable: { thread_id: 'x' } } } });
  });

  it('leaves the chunks of other modes as they are', () => {
    const chunk = { configurable: { run_context: 1 } };
    expect(publishableChunkOf('values', chunk)).toBe(chunk);
  });
});
