import type { AppConfig } from '../config/app-config';
import { InProcessRunEventBus } from '../events/in-process-run-event-bus';
import type { MetricsService } from '../observability/metrics.service';
import { InlineRunQueue } from './inline-run-queue';
import { RunEnds } from './run-ends.service';
import type { RunOutcome } from './run-queue';
import type { RunStore } from './store/run-store';

/** The in-process queue: a parked run waits outside the slots and is woken by an event, not by a short timer. */
describe('InlineRunQueue', () => {
  let bus: InProcessRunEventBus;
  let queue: InlineRunQueue;
  let executed: Array<{ id: string; at: number }>;
  let outcomes: Record<string, RunOutcome[]>;

  beforeEach(() => {
    bus = new InProcessRunEventBus(50, 60_000);
    const ends = new RunEnds(bus, {} as RunStore);
    queue = new InlineRunQueue({ workerConcurrency: 2 } as AppConfig, { watchQueue: () => undefined } as unknown as MetricsService, ends);
    executed = [];
    outcomes = {};
    queue.work({
      execute: async (id) => {
        executed.push({ id, at: Date.now() });
        await new Promise((r) => setTimeout(r, 10));
        return outcomes[id]?.shift() ?? { kind: 'ended' };
      },
      abandon: async () => undefined,
    });
  });

  afterEach(async () => {
    await queue.close();
    bus.onModuleDestroy();
  });

  const runs = (id: string) => executed.filter((e) => e.id === id);
  const until = async (check: () => boolean, ms = 2000) => {
    const deadline = Date.now() + ms;
    while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  };

  it('a run parked behind the turn ahead runs again within a few ms of that turn’s end, not at its safety net', async () => {
    outcomes.r1 = [{ kind: 'parked', retryInMs: 60_000, wakeOn: 'r0' }];
    await queue.enqueue('r1');
    await until(() => runs('r1').length === 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(runs('r1')).toHaveLength(1); // parked: not looked at again meanwhile
    expect(await queue.anyParked()).toBe(true);
    const endedAt = Date.now();
    bus.end('r0');
    await until(() => runs('r1').length === 2);
    expect(runs('r1')).toHaveLength(2);
    expect(runs('r1')[1].at - endedAt).toBeLessThan(100);
    expect(await queue.anyParked()).toBe(false);
  });

  it('an end reported before the run parked wakes it at once', async () => {
    bus.end('r0');
    outcomes.r1 = [{ kind: 'parked', retryInMs: 60_000, wakeOn: 'r0' }];
    await queue.enqueue('r1');
    await until(() => runs('r1').length === 2);
    expect(runs('r1')).toHaveLength(2);
  });

  it('wake() runs a parked run now; cancel() drops it (its end no longer wakes it)', async () => {
    outcomes.r1 = [{ kind: 'parked', retryInMs: 60_000 }];
    await queue.enqueue('r1');
    await until(() => runs('r1').length === 1);
    await until(() => queue.isLocal('r1') && executed.length === 1);
    await new Promise((r) => setTimeout(r, 30));
    await queue.wake('r1');
    await until(() => runs('r1').length === 2);
    expect(runs('r1')).toHaveLength(2);

    outcomes.r2 = [{ kind: 'parked', retryInMs: 60_000, wakeOn: 'r0b' }];
    await queue.enqueue('r2');
    await until(() => runs('r2').length === 1);
    await new Promise((r) => setTimeout(r, 30));
    await queue.cancel('r2');
    bus.end('r0b');
    await new Promise((r) => setTimeout(r, 100));
    expect(runs('r2')).toHaveLength(1);
    expect(queue.isLocal('r2')).toBe(false);
  });

  it('a run enqueued while it executes here (a decision while its pause winds down) runs again after', async () => {
    await queue.enqueue('r1');
    await until(() => runs('r1').length === 1);
    await queue.enqueue('r1'); // still executing
    await until(() => runs('r1').length === 2);
    expect(runs('r1')).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 50));
    expect(runs('r1')).toHaveLength(2); // once, not forever
  });
});
