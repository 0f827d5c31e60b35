import { RunProtocolEvents } from './protocol-events';

const lifecycles = (entries: ReturnType<RunProtocolEvents['chunk']>) =>
  entries.filter((e) => e.method === 'lifecycle').map((e) => [e.params.namespace.join('|'), (e.params.data as { event: string }).event]);

describe('RunProtocolEvents: node task and subgraph lifecycles', () => {
  it('a task namespace starts before its first event and completes after its node update, before the next event', () => {
    const events = new RunProtocolEvents('chat');
    const first = events.chunk('custom|reply:t1', { name: 'note', payload: 1 });
    expect(first.map((e) => e.method)).toEqual(['lifecycle', 'custom']);
    expect(lifecycles(first)).toEqual([['reply:t1', 'started']]);
    expect(lifecycles(events.chunk('updates', { reply: { done: true } }))).toEqual([]);
    const next = events.chunk('values', { done: true });
    expect(next.map((e) => e.method)).toEqual(['lifecycle', 'values']);
    expect(lifecycles(next)).toEqual([['reply:t1', 'completed']]);
    expect(lifecycles(events.ended())).toEqual([['', 'completed']]);
  });

  it('a failed run fails every started namespace, then the root with its error', () => {
    const events = new RunProtocolEvents('nested');
    expect(lifecycles(events.chunk('values|forecast:t1', { topic: 'rain' }))).toEqual([['forecast:t1', 'started']]);
    const ended = events.ended('boom');
    expect(lifecycles(ended)).toEqual([
      ['forecast:t1', 'failed'],
      ['', 'failed'],
    ]);
    expect(ended.at(-1)?.params.data).toEqual({ event: 'failed', graph_name: 'nested', error: 'boom' });
    expect(events.ended()).toEqual([]);
  });
});
