import { AsyncBatchedStore } from '@langchain/langgraph-checkpoint';

interface Queued {
  operation: unknown;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
}

/** the parts of LangGraph's AsyncBatchedStore this patch reads and replaces */
interface Batched {
  running: boolean;
  processingTask: Promise<void> | null;
  queue: Map<number, Queued>;
  store: { batch(operations: unknown[]): Promise<unknown[]> };
  enqueueOperation(operation: unknown): Promise<unknown>;
  processBatchQueue(): Promise<void>;
}

/** the stores whose queue is being drained now */
const draining = new WeakSet<Batched>();

/**
 * LangGraph wraps the `store` of every run in an AsyncBatchedStore whose loop polls its queue with
 * `setTimeout(0)` for as long as the run lasts, operations or not: a timer, a promise and a wake-up each
 * millisecond (some 2,000 while a model answers in two seconds), for every run given a store (the service gives
 * each run its tenant's). Installed, the loop runs only while operations wait: an operation wakes it, it still
 * waits one `setTimeout(0)` so that operations of the same moment go in one `batch`, and it goes idle when the
 * queue is empty. Batches are still one at a time, in order; a failed batch still rejects each of its operations;
 * `stop()` still waits for the batch in flight (`processingTask`), and operations enqueued while stopped still
 * wait for `start()`.
 *
 * Relies on (@langchain/langgraph-checkpoint 1.2.2; the canary is batched-store-wakeup.spec.ts): `start()`
 * setting `running` and keeping `processBatchQueue()`'s promise as `processingTask`, `stop()` clearing `running`
 * and awaiting `processingTask`, every operation going through `enqueueOperation` into `queue` (key → `{
 * operation, resolve, reject }`, in insertion order) and `store.batch(operations)` answering in order. Installed by
 * installPlatformPatches; returns whether it was.
 */
export function batchedStoreWakeUp(proto = AsyncBatchedStore.prototype as unknown as Batched): boolean {
  const enqueue = proto.enqueueOperation;
  if (typeof enqueue !== 'function' || typeof proto.processBatchQueue !== 'function') return false;
  // start() after a stop() whose batch is still in flight: that drain goes on (one at a time)
  proto.processBatchQueue = function (this: Batched) {
    return draining.has(this) && this.processingTask ? this.processingTask : drain(this);
  };
  proto.enqueueOperation = function (this: Batched, operation: unknown) {
    const answer = enqueue.call(this, operation);
    if (this.running && !draining.has(this)) this.processingTask = drain(this);
    return answer;
  };
  return true;
}

/** LangGraph's loop, leaving when the queue is empty instead of polling it */
async function drain(store: Batched): Promise<void> {
  draining.add(store);
  try {
    while (store.running) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (store.queue.size === 0) return;
      const batch = [...store.queue.values()];
      store.queue.clear();
      try {
        const results = await store.store.batch(batch.map((q) => q.operation));
        batch.forEach((q, i) => q.resolve(results[i]));
      } catch (e) {
        for (const q of batch) q.reject(e);
      }
    }
  } finally {
    draining.delete(store);
  }
}
