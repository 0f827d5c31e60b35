/** The longest a temporary thread waits, after its run ended, for the request that reads it (a request that died first). */
export const READER_BOUND_MS = 30_000;

/**
 * The requests that read a stateless run's temporary thread once the run has ended (the `wait` that created it
 * answers with the thread's final values): the thread is deleted when they are done — an event, not a fixed
 * delay — or, should a request never get to read it, READER_BOUND_MS after the run's end.
 */
export class TemporaryThreadReaders {
  private readonly holds = new Map<string, () => void>();

  /** A request will read the thread of `runId` (call before the run can end). */
  hold(runId: string): Promise<void> {
    return new Promise<void>((resolve) => this.holds.set(runId, resolve));
  }

  /** The request is done with the thread (or will not read it): the deletion may go on. */
  release(runId: string): void {
    this.holds.get(runId)?.();
    this.holds.delete(runId);
  }

  /** Resolves when `reading` settled (released), or READER_BOUND_MS after this is called. */
  async done(runId: string, reading: Promise<unknown>[]): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, READER_BOUND_MS)));
    try {
      await Promise.race([Promise.allSettled(reading), bound]);
    } finally {
      clearTimeout(timer);
      this.holds.delete(runId);
    }
  }
}
