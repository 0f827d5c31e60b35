import type { AppConfig } from '../config/app-config';
import type { RunEntity } from '../database/entities';
import { InProcessRunEventBus } from '../events/in-process-run-event-bus';
import { RunEnds } from '../runs/run-ends.service';
import type { RunStore } from '../runs/store/run-store';
import type { SessionStore } from '../runs/store/session-store';
import { RunSuperseded, SESSION_RECHECK_MS, SessionLeaseBusy, TurnLease } from './turn-lease.service';

/** TurnLease.take in `defer` mode (a queued run): when to park, for how long, and which run's end wakes it. */
describe('TurnLease.take (defer)', () => {
  const run = { id: 'r1', sessionId: 's1', tenantId: 't' } as RunEntity;
  const config = { runLockMs: 5000, durability: { dbWriteRetries: 0 } } as AppConfig;
  const runs = { get: () => Promise.resolve({ ...run, status: 'running', cancelRequested: false }) } as unknown as RunStore;

  function leaseWith(tries: boolean[], holders: Array<{ runId: string; remainingMs: number } | null>, line: string[] = ['r1']) {
    const sessions = {
      tryLease: jest.fn(() => Promise.resolve(tries.shift() ?? false)),
      leaseHolder: jest.fn(() => Promise.resolve(holders.shift() ?? null)),
      inflight: jest.fn(() => Promise.resolve(line)),
    };
    return { sessions, lease: new TurnLease(sessions as unknown as SessionStore, runs, config, {} as RunEnds) };
  }
  const take = (lease: TurnLease) => lease.take(run, Date.now() + 1000, new AbortController().signal, 'defer');

  it("a lease that lapsed between the try and the look (a crashed worker's) is taken at once, not after a park", async () => {
    const { sessions, lease } = leaseWith([false, true], [null]);
    await expect(take(lease)).resolves.toBe(true);
    expect(sessions.tryLease).toHaveBeenCalledTimes(2);
  });

  it("the run's own live lease (its previous attempt's): parked until it lapses, at most 1 s, with no run to wake it", async () => {
    await expect(take(leaseWith([false], [{ runId: 'r1', remainingMs: 300 }]).lease)).rejects.toMatchObject({
      retryInMs: 350,
      wakeOn: undefined,
    });
    await expect(take(leaseWith([false], [{ runId: 'r1', remainingMs: 4000 }]).lease)).rejects.toMatchObject({ retryInMs: 1000 });
  });

  it('an earlier turn of the session: parked until that turn ends (wakeOn), the safety net seconds away', async () => {
    const { sessions, lease } = leaseWith([false], [], ['r0', 'rA', 'r1', 'r2']);
    const busy = take(lease);
    await expect(busy).rejects.toBeInstanceOf(SessionLeaseBusy);
    await expect(busy).rejects.toMatchObject({ wakeOn: 'rA' }); // the turn just ahead, not the first in line
    const { retryInMs } = (await busy.catch((e: SessionLeaseBusy) => e)) as SessionLeaseBusy;
    expect(retryInMs).toBeGreaterThanOrEqual(SESSION_RECHECK_MS * 0.75);
    expect(retryInMs).toBeLessThanOrEqual(SESSION_RECHECK_MS * 1.25);
    expect(sessions.leaseHolder).not.toHaveBeenCalled();
  });

  it("another run's lease with nobody ahead: woken by that run's end, or when its lease lapses", async () => {
    await expect(take(leaseWith([false], [{ runId: 'r0', remainingMs: 300 }]).lease)).rejects.toMatchObject({
      retryInMs: 350,
      wakeOn: 'r0',
    });
    const { sessions, lease } = leaseWith([false, false], [null, null]);
    const busy = take(lease);
    await expect(busy).rejects.toMatchObject({ wakeOn: undefined });
    expect(((await busy.catch((e: SessionLeaseBusy) => e)) as SessionLeaseBusy).retryInMs).toBeGreaterThanOrEqual(
      SESSION_RECHECK_MS * 0.75,
    );
    expect(sessions.tryLease).toHaveBeenCalledTimes(2);
  });
});

/** TurnLease.take in `block` mode (a turn answered in the request): woken by the end of the turn ahead, not by polling. */
describe('TurnLease.take (block)', () => {
  const run = { id: 'r1', sessionId: 's1', tenantId: 't' } as RunEntity;
  const config = { runLockMs: 5000, durability: { dbWriteRetries: 0 } } as AppConfig;
  const runs = { get: jest.fn(() => Promise.resolve({ ...run, status: 'queued', cancelRequested: false })) };
  let bus: InProcessRunEventBus;

  beforeEach(() => {
    bus = new InProcessRunEventBus(50, 60_000);
    runs.get.mockClear();
  });
  afterEach(() => bus.onModuleDestroy());

  function blocked() {
    let free = false;
    const sessions = {
      tryLease: jest.fn(() => Promise.resolve(free)),
      leaseHolder: jest.fn(() => Promise.resolve(free ? null : { runId: 'r0', remainingMs: 4000 })),
      inflight: jest.fn(() => Promise.resolve(free ? ['r1'] : ['r0', 'r1'])),
    };
    const ends = new RunEnds(bus, runs as unknown as RunStore);
    const lease = new TurnLease(sessions as unknown as SessionStore, runs as unknown as RunStore, config, ends);
    return { sessions, lease, free: () => (free = true) };
  }

  it('starts within a few ms of the earlier turn’s end, with no statement while it waits', async () => {
    const { sessions, lease, free } = blocked();
    const taken = lease.take(run, Date.now() + 10_000, new AbortController().signal, 'block');
    await new Promise((r) => setTimeout(r, 300));
    // one look: the try, the run's row, the line — then nothing for 300 ms (a 50 ms poll would have made 12)
    expect(sessions.tryLease).toHaveBeenCalledTimes(1);
    expect(runs.get).toHaveBeenCalledTimes(1);
    expect(sessions.inflight).toHaveBeenCalledTimes(1);
    free(); // the earlier turn's final row (its lease released in the same statement), then its end on the bus
    const endedAt = Date.now();
    bus.end('r0');
    await expect(taken).resolves.toBe(true);
    expect(Date.now() - endedAt).toBeLessThan(100);
    expect(sessions.tryLease).toHaveBeenCalledTimes(2);
  });

  it('gives up at the deadline, and when the signal aborts', async () => {
    const { lease } = blocked();
    const at = Date.now();
    await expect(lease.take(run, Date.now() + 200, new AbortController().signal, 'block')).resolves.toBe(false);
    expect(Date.now() - at).toBeLessThan(1000);
    const abort = new AbortController();
    const aborted = lease.take(run, Date.now() + 10_000, abort.signal, 'block');
    setTimeout(() => abort.abort(), 50);
    await expect(aborted).resolves.toBe(false);
  });
});

/** TurnLease.keep: renewals of this attempt's lease, and what happens when another attempt has taken the run over. */
describe('TurnLease.keep', () => {
  const run = { id: 'r1', sessionId: 's1', tenantId: 't', attempts: 1 } as RunEntity;
  const config = { runLockMs: 500, durability: { dbWriteRetries: 0 } } as AppConfig;

  function keeping(renewals: Array<boolean | Error>) {
    const sessions = {
      renewLease: jest.fn(() => {
        const next = renewals.shift() ?? true;
        return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
      }),
    };
    const lost = jest.fn();
    const kept = new TurnLease(sessions as unknown as SessionStore, {} as RunStore, config, {} as RunEnds).keep(run, lost);
    return { sessions, lost, stop: kept.stop, confirm: kept.confirm };
  }

  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("renews with the attempt as fencing token; an unreachable database is not a loss; another attempt's lease is, once", async () => {
    const { sessions, lost, stop } = keeping([true, new Error('connection reset'), false, false]);
    await jest.advanceTimersByTimeAsync(125 * 2);
    expect(sessions.renewLease).toHaveBeenLastCalledWith('s1', 'r1', 1, 500);
    expect(lost).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(125 * 4);
    expect(lost).toHaveBeenCalledTimes(1);
    expect(sessions.renewLease).toHaveBeenCalledTimes(3); // no renewal after the loss
    stop();
  });

  it('confirm: a lease renewed within half of RUN_LOCK_MS is held without asking the database', async () => {
    const { sessions, confirm, stop } = keeping([]);
    await jest.advanceTimersByTimeAsync(125 * 3);
    const renewals = sessions.renewLease.mock.calls.length;
    expect(confirm()).toBeUndefined(); // go on at once
    expect(sessions.renewLease).toHaveBeenCalledTimes(renewals);
    stop();
  });

  it('confirm: after renewals that did not get through, renews now; one that holds lets the side effect run', async () => {
    const { sessions, lost, confirm, stop } = keeping([new Error('down'), new Error('down'), true]);
    await jest.advanceTimersByTimeAsync(125 * 2 + 10); // two renewals failed: the last one that held is 260 ms old
    const confirmed = confirm();
    const again = confirm(); // asked while that renewal is out: waits for the same one
    expect(again).toBe(confirmed);
    await jest.advanceTimersByTimeAsync(0);
    await expect(confirmed).resolves.toBeUndefined();
    expect(sessions.renewLease).toHaveBeenCalledTimes(3);
    expect(confirm()).toBeUndefined(); // held again: at once
    expect(lost).not.toHaveBeenCalled();
    stop();
  });

  it("confirm: the database out of reach until the lease runs out by this clock refuses the side effect with the database's error", async () => {
    const { lost, confirm, stop } = keeping(Array.from({ length: 20 }, () => new Error('connection timeout')));
    await jest.advanceTimersByTimeAsync(300);
    const unconfirmed = confirm();
    const refused = expect(unconfirmed).rejects.toThrow('connection timeout');
    await jest.advanceTimersByTimeAsync(500);
    await refused;
    // not a loss: a queued run is handed back, a write fenced by the attempt that decides whether another has it
    expect(lost).not.toHaveBeenCalled();
    stop();
  });

  it('confirm: a renewal that finds another attempt stops this one, once; later asks are refused without a query', async () => {
    const { sessions, lost, confirm } = keeping([new Error('down'), new Error('down'), false]);
    await jest.advanceTimersByTimeAsync(260);
    const superseded = confirm();
    const rejected = expect(superseded).rejects.toMatchObject({ runId: 'r1', attempt: 1 });
    await jest.advanceTimersByTimeAsync(0);
    await rejected;
    await expect(superseded).rejects.toBeInstanceOf(RunSuperseded);
    expect(lost).toHaveBeenCalledTimes(1);
    const renewals = sessions.renewLease.mock.calls.length;
    await expect(confirm()).rejects.toBeInstanceOf(RunSuperseded);
    await jest.advanceTimersByTimeAsync(500);
    expect(sessions.renewLease).toHaveBeenCalledTimes(renewals); // the timer stopped too
  });
});
