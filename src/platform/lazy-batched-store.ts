import { AsyncBatchedStore } from '@langchain/langgraph-checkpoint';

/** marks the patched methods: installing twice keeps one wrapper */
const PATCHED = Symbol.for('agent-orchestrator.lazyBatchedStore');

interface BatchedStoreInternals {
  running: boolean;
  processingTask: Promise<void> | null;
  queue: Map<number, unknown>;
  processBatchQueue(): Promise<void>;
  start(): void;
  enqueueOperation(operation: unknown): Promise<unknown>;
}

/**
 * LangGraph wraps a run's `store` in an `AsyncBatchedStore` and starts it as the run starts: its batch loop waits
 * `setTimeout(0)` over and over until the run ends (a timer and a promise every millisecond of every turn), and the
 * end of the run waits for the loop's last timer — also for a graph whose nodes never touch the store (react). The
 * run's `config.store` stays the same object. Installed, `start()` only marks the store running and the loop starts
 * with the first operation (or at `start()` when operations already wait); from then on it runs as before, batching
 * what arrives in one tick, until `stop()`.
 *
 * Relies on (@langchain/langgraph-checkpoint 1.2; the canary is lazy-batched-store.spec.ts): `start()` setting
 * `running` and `processingTask = processBatchQueue()`, `stop()` clearing `running` and awaiting `processingTask`,
 * every operation going through `enqueueOperation` into `queue`. Installed by installPlatformPatches.
 */
export function lazyBatchedStore(proto = AsyncBatchedStore.prototype as unknown as BatchedStoreInternals): boolean {
  const enqueue = proto.enqueueOperation as BatchedStoreInternals['enqueueOperation'] & { [PATCHED]?: true };
  if (typeof enqueue !== 'function' || typeof proto.processBatchQueue !== 'function' || typeof proto.start !== 'function') return false;
  if (enqueue[PATCHED]) return true;
  const start = function (this: BatchedStoreInternals): void {
    if (this.running) return;
    this.running = true;
    // a stopped store's old loop has ended: a new one starts when there is work
    this.processingTask = this.queue.size > 0 ? this.processBatchQueue() : null;
  };
  const enqueueOperation = function (this: BatchedStoreInternals, operation: unknown): Promise<unknown> {
    const done = enqueue.call(this, operation);
    if (this.running && !this.processingTask) this.processingTask = this.processBatchQueue();
    return done;
  };
  proto.start = start;
  proto.enqueueOperation = Object.assign(enqueueOperation, { [PATCHED]: true as const });
  return true;
}
