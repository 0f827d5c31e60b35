import { linkSignals } from './linked-signal';

describe('linkSignals', () => {
  it('aborts when any source aborts, with its reason', () => {
    const a = new AbortController();
    const b = new AbortController();
    const { signal } = linkSignals([a.signal, undefined, b.signal]);
    expect(signal.aborted).toBe(false);
    b.abort(new Error('stop'));
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe('stop');
  });

  it('is aborted at once when a source already is', () => {
    const a = new AbortController();
    a.abort(new Error('early'));
    expect(linkSignals([a.signal]).signal.aborted).toBe(true);
  });

  it('after dispose, a long-lived source no longer reaches the linked signal', () => {
    const long = new AbortController();
    const { signal, dispose } = linkSignals([long.signal]);
    dispose();
    long.abort();
    expect(signal.aborted).toBe(false);
  });
});
