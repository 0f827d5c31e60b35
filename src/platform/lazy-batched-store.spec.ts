import { AsyncBatchedStore, InMemoryStore } from '@langchain/langgraph-checkpoint';

import { lazyBatchedStore } from './lazy-batched-store';

type Internals = { processingTask: Promise<void> | null; isRunning: boolean };

describe('lazyBatchedStore (canary: AsyncBatchedStore internals)', () => {
  beforeAll(() => {
    expect(lazyBatchedStore()).toBe(true);
    expect(lazyBatchedStore()).toBe(true); // once: the wrapper is not wrapped again
  });

  it('a started store runs no batch loop until an operation arrives, then serves it and stops', async () => {
    const store = new AsyncBatchedStore(new InMemoryStore());
    store.start();
    expect(store.isRunning).toBe(true);
    expect((store as unknown as Internals).processingTask).toBeNull();
    await store.put(['ns'], 'k', { v: 1 });
    expect((store as unknown as Internals).processingTask).not.toBeNull();
    expect((await store.get(['ns'], 'k'))?.value).toEqual({ v: 1 });
    await store.stop();
    expect(store.isRunning).toBe(false);
  });

  it('a store stopped and started again serves new operations (a new loop, not the ended one)', async () => {
    const store = new AsyncBatchedStore(new InMemoryStore());
    store.start();
    await store.put(['ns'], 'a', { n: 1 });
    await store.stop();
    store.start();
    await store.put(['ns'], 'b', { n: 2 });
    expect((await store.search(['ns'])).map((i) => i.key).sort()).toEqual(['a', 'b']);
    await store.stop();
  });

  it('operations queued before start are served when it starts; a never-used store stops at once', async () => {
    const store = new AsyncBatchedStore(new InMemoryStore());
    const put = store.put(['ns'], 'early', { ok: true });
    store.start();
    await put;
    expect((await store.get(['ns'], 'early'))?.value).toEqual({ ok: true });
    await store.stop();
    const idle = new AsyncBatchedStore(new InMemoryStore());
    idle.start();
    await idle.stop();
    expect(idle.isRunning).toBe(false);
  });
});
