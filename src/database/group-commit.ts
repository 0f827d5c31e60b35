/**
 * Group commit: an item goes out at once when nothing is out; what is submitted while a batch is out goes
 * together in the next one (at most `max`). Idle, a call costs what it did alone; under a burst, the round trips
 * (and the database's commits) are shared. A batch that fails is retried item by item, so each caller gets its
 * own outcome: one bad item never fails the others.
 */
export class GroupCommit<T, R> {
  private waiting: Array<{ item: T; resolve: (r: R) => void; reject: (e: unknown) => void }> = [];
  private out = false;

  constructor(
    /** the results in the items' order */
    private readonly commit: (items: T[]) => Promise<R[]>,
    private readonly max = 100,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.out) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.out = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, this.max);
        try {
          const results = await this.commit(batch.map((b) => b.item));
          batch.forEach((b, i) => b.resolve(results[i]));
        } catch (err) {
          if (batch.length === 1) batch[0].reject(err);
          else await Promise.all(batch.map((b) => this.commit([b.item]).then(([r]) => b.resolve(r), b.reject)));
        }
      }
    } finally {
      this.out = false;
    }
  }
}
