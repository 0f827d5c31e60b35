import { IterableReadableStream } from '@langchain/core/utils/stream';

const PATCHED = Symbol.for('agent-orchestrator.closedStreamEnd');

type FromAsyncGenerator = typeof IterableReadableStream.fromAsyncGenerator & { [PATCHED]?: true };

/**
 * LangChain's `IterableReadableStream.fromAsyncGenerator` (every `Runnable.stream`, so every graph run the service
 * streams) closes its stream when the generator is done and then enqueues the generator's return value into the
 * closed stream: Node throws an `ERR_INVALID_STATE` TypeError — a stack trace captured — that the closed stream
 * swallows, at the end of every stream. Installed, the stream closes without that enqueue; what a reader gets is
 * unchanged (the value enqueued after close never reached one), and cancelling still returns the generator.
 *
 * Relies on (@langchain/core 1.4.0; the canary is closed-stream-end.spec.ts): callers reaching the static method
 * through the class at each call (`IterableReadableStream.fromAsyncGenerator(…)`), and the method building a plain
 * `IterableReadableStream` over `generator.next()` / `generator.return(reason)`. Installed by
 * installPlatformPatches; installed once.
 */
export function closedStreamEnd(target: { fromAsyncGenerator: FromAsyncGenerator } = IterableReadableStream): boolean {
  if (target.fromAsyncGenerator[PATCHED]) return true;
  const patched = (<T>(generator: AsyncGenerator<T>) =>
    new IterableReadableStream<T>({
      async pull(controller) {
        const { value, done } = await generator.next();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      async cancel(reason) {
        await generator.return(reason);
      },
    })) as FromAsyncGenerator;
  patched[PATCHED] = true;
  target.fromAsyncGenerator = patched;
  return true;
}
