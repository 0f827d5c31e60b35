import { AIMessage } from '@langchain/core/messages';
import { ChatGeneration } from '@langchain/core/outputs';
import { withRunTree } from 'langsmith/singletons/traceable';

import { runInTenant } from '../auth/tenant';
import { LlmCache, MemoryCacheStore, NO_LOOKUP } from './llm-cache';

describe('LlmCache', () => {
  const stats = {
    hits: 0,
    misses: 0,
    hit() {
      this.hits++;
    },
    miss() {
      this.misses++;
    },
  };
  const gen = (text: string): ChatGeneration => ({ text, message: new AIMessage(text) });

  it('misses, stores, then hits with a marked message', () =>
    runInTenant('acme', async () => {
      const cache = new LlmCache(new MemoryCacheStore(10), 60, stats);
      expect(await cache.lookup('prompt', 'model=a,temperature=0')).toBeNull();
      await cache.update('prompt', 'model=a,temperature=0', [gen('hello')]);
      const hit = (await cache.lookup('prompt', 'model=a,temperature=0')) as ChatGeneration[];
      expect(hit[0].text).toBe('hello');
      expect((hit[0].message.response_metadata as Record<string, unknown>).cache_hit).toBe(true);
      expect(await cache.lookup('prompt', 'model=a,temperature=0.7')).toBeNull();
      expect(await cache.lookup('other prompt', 'model=a,temperature=0')).toBeNull();
      expect([stats.hits, stats.misses]).toEqual([1, 3]);
    }));

  it('expires entries after the TTL and bounds the in-process store', async () => {
    const store = new MemoryCacheStore(2);
    await store.set('a', '1', 0.001);
    await new Promise((r) => setTimeout(r, 5));
    expect(await store.get('a')).toBeNull();
    await store.set('b', '2', 60);
    await store.set('c', '3', 60);
    await store.set('d', '4', 60);
    expect(await store.get('b')).toBeNull();
    expect(await store.get('d')).toBe('4');
  });
});

describe('LlmCache tenancy', () => {
  const stats = { hit: () => undefined, miss: () => undefined };

  it('never answers one tenant from another tenant’s entry', async () => {
    const cache = new LlmCache(new MemoryCacheStore(10), 60, stats);
    await runInTenant('acme', () =>
      cache.update('prompt', 'model=a', [{ text: 'acme says', message: new AIMessage('acme says') } as ChatGeneration]),
    );
    expect(await runInTenant('globex', () => cache.lookup('prompt', 'model=a'))).toBeNull();
    expect(await cache.lookup('prompt', 'model=a')).toBeNull(); // outside a run: no tenant, no lookup
    const hit = (await runInTenant('acme', () => cache.lookup('prompt', 'model=a'))) as ChatGeneration[];
    expect(hit[0].text).toBe('acme says');
  });

  it('neither reads nor stores a call whose tenant is not known: outside a run, or where code replaced the context', async () => {
    const store = new MemoryCacheStore(10);
    const reads = jest.spyOn(store, 'get');
    const writes = jest.spyOn(store, 'set');
    const cache = new LlmCache(store, 60, stats);
    const gen = [{ text: 'answer', message: new AIMessage('answer') } as ChatGeneration];
    await cache.update('prompt', 'model=a', gen);
    expect(await cache.lookup('prompt', 'model=a')).toBeNull();
    // inside a run, a graph's code that runs something under a run tree of its own drops the run's context
    await runInTenant('acme', () =>
      withRunTree({} as never, async () => {
        await cache.update('prompt', 'model=a', gen);
        expect(await cache.lookup('prompt', 'model=a')).toBeNull();
      }),
    );
    expect([reads.mock.calls.length, writes.mock.calls.length]).toEqual([0, 0]);
    // the same calls with the run's context kept are read and stored
    await runInTenant('acme', () => cache.update('prompt', 'model=a', gen));
    await new Promise((r) => setImmediate(r)); // the write is not awaited by update
    expect(await runInTenant('acme', () => cache.lookup('prompt', 'model=a'))).not.toBeNull();
  });

  it('a call marked NO_LOOKUP does not read the store, and its answer is stored under the unmarked key', () =>
    runInTenant('acme', async () => {
      const store = new MemoryCacheStore(10);
      const reads = jest.spyOn(store, 'get');
      const cache = new LlmCache(store, 60, { hit: () => undefined, miss: () => undefined });
      const gen = (text: string): ChatGeneration => ({ text, message: new AIMessage(text) });
      expect(await cache.lookup('prompt with a fresh tool call', `${NO_LOOKUP}model=a`)).toBeNull();
      expect(reads).not.toHaveBeenCalled();
      await cache.update('prompt with a fresh tool call', `${NO_LOOKUP}model=a`, [gen('answer')]);
      await new Promise((r) => setImmediate(r)); // the write is not awaited by update
      const replay = (await cache.lookup('prompt with a fresh tool call', 'model=a')) as ChatGeneration[];
      expect(replay[0].text).toBe('answer');
    }));
});
