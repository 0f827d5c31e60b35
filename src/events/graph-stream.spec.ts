import { eventNameOf, graphStreamModes, streamRequestOf } from './graph-stream';

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
