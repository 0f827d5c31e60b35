import { PersistentUsageCollector, type RunUsage } from './persistent-usage';

describe('PersistentUsageCollector', () => {
  const earlier: RunUsage = {
    totals: { calls: 1, promptTokens: 10, completionTokens: 5 },
    calls: [{ node: 'agent', ms: 3, prompt_tokens: 10, completion_tokens: 5, attempt: 1 }],
  };

  it("adds this attempt's calls to the earlier attempts' usage and writes it after every call, in order", async () => {
    const writes: RunUsage[] = [];
    const usage = new PersistentUsageCollector(earlier, 2, async (u) => {
      await new Promise((r) => setTimeout(r, writes.length === 0 ? 20 : 0)); // a slow first write must not land last
      writes.push(u);
    });
    usage.record({ node: 'agent', ms: 4, prompt_tokens: 20, completion_tokens: 7 });
    usage.record({ node: 'agent', ms: 1, prompt_tokens: 0, completion_tokens: 0, cached: true });
    await usage.flushed();

    expect(usage.runTotals).toEqual({ calls: 2, promptTokens: 30, completionTokens: 12 });
    expect(writes.map((w) => w.calls.length)).toEqual([2, 3]);
    expect(writes[1].totals.calls).toBe(2); // a cache hit is kept in the list, not counted as a call to the endpoint
    expect(usage.runCalls.map((c) => [c.attempt, c.cached ?? false])).toEqual([
      [1, false],
      [2, false],
      [2, true],
    ]);
  });

  it('a failing write does not fail the run; the next write carries everything', async () => {
    let fail = true;
    const writes: RunUsage[] = [];
    const usage = new PersistentUsageCollector({ totals: { calls: 0, promptTokens: 0, completionTokens: 0 }, calls: [] }, 1, async (u) => {
      if (fail) {
        fail = false;
        throw new Error('connection reset');
      }
      writes.push(u);
    });
    usage.record({ node: 'a', ms: 1, prompt_tokens: 1, completion_tokens: 1 });
    usage.record({ node: 'b', ms: 1, prompt_tokens: 1, completion_tokens: 1 });
    await usage.flushed();
    expect(writes).toHaveLength(1);
    expect(writes[0].totals.calls).toBe(2);
  });

  it('with a write delay, coalesces the calls of that time into one write; settled() drops a planned write, flushed() sends it', async () => {
    const none: RunUsage = { totals: { calls: 0, promptTokens: 0, completionTokens: 0 }, calls: [] };
    const writes: RunUsage[] = [];
    const save = (u: RunUsage) => (writes.push(u), Promise.resolve());
    const call = { node: 'a', ms: 1, prompt_tokens: 1, completion_tokens: 1 };

    const coalesced = new PersistentUsageCollector(none, 1, save, 30);
    coalesced.record(call);
    coalesced.record(call);
    expect(writes).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 60));
    expect(writes.map((w) => w.totals.calls)).toEqual([2]);

    writes.length = 0;
    const ending = new PersistentUsageCollector(none, 1, save, 30);
    ending.record(call);
    await ending.settled(); // the run's final statement carries the totals
    await new Promise((r) => setTimeout(r, 60));
    expect(writes).toHaveLength(0);

    const handedBack = new PersistentUsageCollector(none, 1, save, 10_000);
    handedBack.record(call);
    await handedBack.flushed();
    expect(writes.map((w) => w.totals.calls)).toEqual([1]);
  });
});
