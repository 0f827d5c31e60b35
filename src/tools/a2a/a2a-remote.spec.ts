import { RemoteContexts } from './a2a-remote';

describe('the remote context of each thread', () => {
  it('is kept per agent and thread, and only for a thread', () => {
    const contexts = new RemoteContexts();
    contexts.set('desk', 't1', 'ctx-a');
    contexts.set('clerk', 't1', 'ctx-b');
    contexts.set('desk', undefined, 'ctx-c');
    expect([contexts.get('desk', 't1'), contexts.get('clerk', 't1'), contexts.get('desk', 't2'), contexts.get('desk', undefined)]).toEqual([
      'ctx-a',
      'ctx-b',
      undefined,
      undefined,
    ]);
  });

  it('is bounded: the least recently set goes first', () => {
    const contexts = new RemoteContexts(2);
    contexts.set('desk', 't1', 'c1');
    contexts.set('desk', 't2', 'c2');
    contexts.set('desk', 't1', 'c1'); // t1 again: now the newest
    contexts.set('desk', 't3', 'c3');
    expect([contexts.get('desk', 't1'), contexts.get('desk', 't2'), contexts.get('desk', 't3')]).toEqual(['c1', undefined, 'c3']);
  });
});
