import { AsyncBatchedStore, BaseStore, type Operation, type OperationResults } from '@langchain/langgraph-checkpoint';

import { batchedStoreWakeUp } from './batched-store-wakeup';

/** a store that records each batch and answers each operation with its key (or fails the batch when told) */
class RecordingStore extends BaseStore {
  readonly batches: Operation[][] = [];
  fail?: Error;
  release?: () => void;
  hold = false;

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    this.batches.push(operations);
    if (this.hold) await new Promise<void>((resolve) => (this.release = resolve));
    if (this.fail) throw this.fail;
    return operations.map((op) => ({ key: (op as { key?: string }).key }) as never) as OperationResults<Op>;
  }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('batchedStoreWakeUp (canary for @langchain/langgraph-checkpoint 1.2.2)', () => {
  beforeAll(() => expect(batchedStoreWakeUp()).toBe(true));
  afterEach(() => jest.restoreAllMocks());

  it('sets no timer while its queue is empty (LangGraph polled every millisecond for the whole run)', async () => {
    const store = new AsyncBatchedStore(new RecordingStore());
    store.start();
    await tick();
    const timers = jest.spyOn(global, 'setTimeout');
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(timers).not.toHaveBeenCalled();
    await store.stop();
  });

  it('answers operations of the same moment in one batch, in order, and later ones in the next', async () => {
    const inner = new RecordingStore();
    const store = new AsyncBatchedStore(inner);
    store.start();
    await tick();
    const first = await Promise.all([store.get(['a'], 'k1'), store.get(['a'], 'k2')]);
    const second = await store.get(['a'], 'k3');
    expect(first.map((r) => (r as unknown as { key: string }).key)).toEqual(['k1', 'k2']);
    expect((second as unknown as { key: string }).key).toBe('k3');
    expect(inner.batches.map((b) => b.map((op) => (op as { key: string }).key))).toEqual([['k1', 'k2'], ['k3']]);
    await store.stop();
  });

  it('rejects every operation of a failed batch', async () => {
    const inner = new RecordingStore();
    inner.fail = new Error('store down');
    const store = new AsyncBatchedStore(inner);
    store.start();
    const results = await Promise.allSettled([store.get(['a'], 'k1'), store.put(['a'], 'k2', { v: 1 })]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await store.stop();
  });

  it('stop() waits for the batch in flight; an operation enqueued while stopped waits for start()', async () => {
    const inner = new RecordingStore();
    inner.hold = true;
    const store = new AsyncBatchedStore(inner);
    store.start();
    const inFlight = store.get(['a'], 'k1');
    await tick();
    let stopped = false;
    const stopping = store.stop().then(() => (stopped = true));
    await tick();
    expect(stopped).toBe(false);
    inner.release?.();
    await stopping;
    await expect(inFlight).resolves.toEqual({ key: 'k1' });

    inner.hold = false;
    let answered = false;
    const later = store.get(['a'], 'k2').then(() => (answered = true));
    await tick();
    expect(answered).toBe(false);
    store.start();
    await later;
    expect(answered).toBe(true);
    await store.stop();
  });
});
