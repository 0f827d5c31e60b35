import { hasEnded, type RunEntity } from '../database/entities';
import { InProcessRunEventBus } from '../events/in-process-run-event-bus';
import type { RunEvent, SubscribeOptions } from '../events/run-event-bus';
import { RunEndNotSeen, RunEnds } from './run-ends.service';
import type { RunStore } from './store/run-store';

type Row = Pick<RunEntity, 'id' | 'status' | 'finishedAt' | 'sessionId'>;

describe('RunEnds.awaitEnd', () => {
  let bus: InProcessRunEventBus;
  let row: Row;
  let log: string[];
  /** runs during a read, before it answers with the row as it was when the read began */
  let duringRead: (() => void) | undefined;

  const reader = {
    get: async (id: string) => {
      log.push('read');
      if (id !== row.id) throw new Error('not found');
      const seen = { ...row };
      const hook = duringRead;
      duringRead = undefined;
      await new Promise((r) => setImmediate(r));
      hook?.();
      return seen as RunEntity;
    },
  } as Pick<RunStore, 'get'> as RunStore;

  /** the run ends as the orchestrator ends it: final row first, then `result` and `end` on the bus */
  const finish = (status: RunEntity['status'] = 'completed', publish = true) => {
    row = { ...row, status, finishedAt: new Date() };
    if (!publish) return;
    bus.publish(row.id, 'result', { response: 'ok' });
    bus.end(row.id);
  };

  const ends = (recheckMs = 60_000) => {
    const e = new RunEnds(bus, reader);
    e.recheckMs = recheckMs;
    return e;
  };

  beforeEach(() => {
    bus = new InProcessRunEventBus(50, 60_000);
    row = { id: 'r1', status: 'running', finishedAt: null, sessionId: 's1' };
    log = [];
    duringRead = undefined;
  });

  afterEach(() => bus.onModuleDestroy());

  it('resolves with the final row when the bus reports the end (no re-check needed)', async () => {
    const wait = ends().awaitEnd('r1', { timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 20));
    bus.publish('r1', 'progress', { node: 'a', step: 1 });
    finish('failed');
    await expect(wait).resolves.toMatchObject({ id: 'r1', status: 'failed' });
    expect(log).toEqual(['read', 'read']); // the first look, and once after `end`
  });

  it('sees an end the bus never reported by re-reading the row', async () => {
    const wait = ends(20).awaitEnd('r1', { timeoutMs: 5000 });
    setTimeout(() => finish('cancelled', false), 50);
    await expect(wait).resolves.toMatchObject({ status: 'cancelled' });
    expect(log.length).toBeGreaterThan(2);
  });

  it('returns a run that had already ended at once', async () => {
    finish('completed');
    await expect(ends().awaitEnd('r1', { timeoutMs: 5000 })).resolves.toMatchObject({ status: 'completed' });
    // whose events' window has expired too
    const expired = new InProcessRunEventBus(50, 1);
    expired.end('r1');
    await new Promise((r) => setTimeout(r, 20));
    const e = new RunEnds(expired, reader);
    await expect(e.awaitEnd('r1', { timeoutMs: 5000 })).resolves.toMatchObject({ status: 'completed' });
    expired.onModuleDestroy();
  });

  it('misses no end published while the first read is out: subscribed before it', async () => {
    const subscribe = bus.subscribe.bind(bus);
    bus.subscribe = (runId: string, opts?: SubscribeOptions): AsyncGenerator<RunEvent> =>
      (async function* () {
        log.push('subscribed');
        yield* subscribe(runId, opts);
      })();
    duringRead = () => finish('completed'); // the read answers `running`, the run has ended meanwhile
    await expect(ends().awaitEnd('r1', { timeoutMs: 2000 })).resolves.toMatchObject({ status: 'completed' });
    expect(log).toEqual(['subscribed', 'read', 'read']);
  });

  it('rejects with the last row read when the signal aborts', async () => {
    const stop = new AbortController();
    const wait = ends().awaitEnd('r1', { signal: stop.signal });
    setTimeout(() => stop.abort(), 20);
    const err = (await wait.catch((e: unknown) => e)) as RunEndNotSeen;
    expect(err).toBeInstanceOf(RunEndNotSeen);
    expect(err.reason).toBe('aborted');
    expect(err.run.status).toBe('running');
    expect(log).toEqual(['read']); // no read after giving up
    // aborted before the call: one look at the row, and its answer when it has ended
    finish('completed');
    await expect(ends().awaitEnd('r1', { signal: AbortSignal.abort() })).resolves.toMatchObject({ status: 'completed' });
  });

  it('rejects after timeoutMs', async () => {
    const started = Date.now();
    const err = (await ends()
      .awaitEnd('r1', { timeoutMs: 50 })
      .catch((e: unknown) => e)) as RunEndNotSeen;
    expect(err).toBeInstanceOf(RunEndNotSeen);
    expect(err.reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('waits on through a pause for tool approval; a LangGraph interrupt is an end', async () => {
    row = { ...row, status: 'interrupted', finishedAt: null };
    expect(hasEnded(row)).toBe(false);
    const wait = ends(20).awaitEnd('r1', { timeoutMs: 5000 });
    bus.publish('r1', 'interrupt', {});
    await new Promise((r) => setTimeout(r, 60));
    row = { ...row, status: 'queued' }; // approved: queued again, then it runs and ends
    setTimeout(() => finish('interrupted'), 20);
    await expect(wait).resolves.toMatchObject({ status: 'interrupted' });
    expect(hasEnded(row)).toBe(true);
  });

  it('a run executed here: read once its execution is over, without the bus', async () => {
    let done!: () => void;
    const here = new Promise<void>((r) => (done = r));
    const wait = ends().awaitEnd('r1', { here, timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 20));
    expect(log).toEqual([]);
    finish('completed', false);
    done();
    await expect(wait).resolves.toMatchObject({ status: 'completed' });
    expect(log).toEqual(['read']);
  });

  it('a caller following the events itself: woken when its subscription is over', async () => {
    let over!: () => void;
    const followed = new Promise<void>((r) => (over = r));
    const wait = ends().awaitEnd('r1', { followed, timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 20));
    finish('completed', false);
    over();
    await expect(wait).resolves.toMatchObject({ status: 'completed' });
    expect(log).toEqual(['read', 'read']);
  });

  it('reports a missing run as the reader does', async () => {
    await expect(ends().awaitEnd('nope', { timeoutMs: 1000 })).rejects.toThrow('not found');
  });
});

/** RunEnds.whenEnded: the wake-up of a turn waiting for the turn ahead (bus only, no read of the store). */
describe('RunEnds.whenEnded', () => {
  let bus: InProcessRunEventBus;
  const reader = { get: jest.fn() } as unknown as RunStore;

  beforeEach(() => (bus = new InProcessRunEventBus(50, 60_000)));
  afterEach(() => bus.onModuleDestroy());

  it('resolves on the run’s end, for every waiter, through one subscription and no read', async () => {
    const subscribe = jest.spyOn(bus, 'subscribe');
    const ends = new RunEnds(bus, reader);
    let woken = 0;
    const waits = [ends.whenEnded('r0'), ends.whenEnded('r0'), ends.whenEnded('r0')].map((p) => p.then(() => (woken += 1)));
    await new Promise((r) => setTimeout(r, 30));
    expect(woken).toBe(0);
    bus.publish('r0', 'progress', { step: 1 });
    await new Promise((r) => setTimeout(r, 10));
    expect(woken).toBe(0); // an event that is not the end wakes nobody
    bus.end('r0');
    await Promise.all(waits);
    expect(woken).toBe(3);
    expect(subscribe).toHaveBeenCalledTimes(1);
    expect(reader.get).not.toHaveBeenCalled();
  });

  it('an end already reported resolves at once; an aborted wait resolves and leaves the others waiting', async () => {
    const ends = new RunEnds(bus, reader);
    bus.end('gone');
    await expect(ends.whenEnded('gone')).resolves.toBeUndefined();
    const stop = new AbortController();
    let other = false;
    void ends.whenEnded('r1').then(() => (other = true));
    const aborted = ends.whenEnded('r1', stop.signal);
    stop.abort();
    await expect(aborted).resolves.toBeUndefined();
    await new Promise((r) => setTimeout(r, 20));
    expect(other).toBe(false);
    bus.end('r1');
    await new Promise((r) => setTimeout(r, 20));
    expect(other).toBe(true);
  });
});
