import type { RunEnds } from './run-ends.service';

/**
 * Parked runs woken by the end of the run they wait for (the turn ahead of them on their session): one
 * registration per parked run, replaced when it parks again, dropped when it is taken or cancelled. The end comes
 * from the run event bus (RunEnds.whenEnded), so it wakes a run parked in this process whichever process ran the
 * other; the park's own delay is only the slow safety net.
 */
export class EndWakeups {
  private readonly pending = new Map<string, AbortController>();

  constructor(
    private readonly ends: RunEnds,
    private readonly wake: (runId: string) => void,
  ) {}

  /** `runId` is woken when `blocker` ends (an end already reported wakes it at once). */
  add(runId: string, blocker: string): void {
    this.drop(runId);
    const stop = new AbortController();
    this.pending.set(runId, stop);
    void this.ends.whenEnded(blocker, stop.signal).then(() => {
      if (stop.signal.aborted) return;
      this.pending.delete(runId);
      this.wake(runId);
    });
  }

  drop(runId: string): void {
    this.pending.get(runId)?.abort();
    this.pending.delete(runId);
  }

  clear(): void {
    for (const stop of this.pending.values()) stop.abort();
    this.pending.clear();
  }
}
