import { GroupCommit } from './group-commit';

describe('GroupCommit', () => {
  it('sends the first item at once and what comes while it is out together next, results in order', async () => {
    const batches: number[][] = [];
    const gc = new GroupCommit<number, number>(async (items) => {
      batches.push(items);
      await new Promise((r) => setTimeout(r, 5));
      return items.map((i) => i * 10);
    });
    const results = await Promise.all([1, 2, 3, 4].map((i) => gc.submit(i)));
    expect(results).toEqual([10, 20, 30, 40]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
    expect(await gc.submit(5)).toBe(50); // idle again: alone
    expect(batches.at(-1)).toEqual([5]);
  });

  it('splits a burst at `max`', async () => {
    const sizes: number[] = [];
    const gc = new GroupCommit<number, number>(async (items) => (sizes.push(items.length), items), 3);
    await Promise.all(Array.from({ length: 8 }, (_, i) => gc.submit(i)));
    expect(sizes).toEqual([1, 3, 3, 1]);
  });

  it('retries a failed batch item by item: only the bad item fails', async () => {
    const gc = new GroupCommit<number, number>(async (items) => {
      if (items.includes(3)) throw new Error(`bad batch ${items.join(',')}`);
      return items;
    });
    const outcomes = await Promise.allSettled([1, 2, 3, 4].map((i) => gc.submit(i)));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[2] as PromiseRejectedResult).reason.message).toBe('bad batch 3');
  });
});
