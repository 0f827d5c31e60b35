/**
 * One signal that aborts when any source does, with listeners removed by `dispose()`. Unlike
 * `AbortSignal.any`, a long-lived source (the worker's shutdown signal) keeps nothing of a finished run.
 */
export function linkSignals(sources: Array<AbortSignal | undefined>): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const live = sources.filter((s): s is AbortSignal => Boolean(s));
  const abort = (s: AbortSignal) => () => controller.abort(s.reason);
  const listeners = live.map((s) => [s, abort(s)] as const);
  for (const [s, onAbort] of listeners) {
    if (s.aborted) {
      controller.abort(s.reason);
      break;
    }
    s.addEventListener('abort', onAbort, { once: true });
  }
  return {
    signal: controller.signal,
    dispose: () => {
      for (const [s, onAbort] of listeners) s.removeEventListener('abort', onAbort);
    },
  };
}
