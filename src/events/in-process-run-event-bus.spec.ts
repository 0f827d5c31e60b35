import { InProcessRunEventBus } from './in-process-run-event-bus';
import type { RunEvent } from './run-event-bus';

async function collect(it: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const out: RunEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

describe('InProcessRunEventBus', () => {
  let bus: InProcessRunEventBus;

  beforeEach(() => {
    bus = new InProcessRunEventBus(5, 60_000);
  });

  afterEach(() => bus.onModuleDestroy());

  it('replays the window, then live events, until end (not yielded)', async () => {
    bus.publish('r1', 'metadata', { run_id: 'r1' });
    bus.publish('r1', 'progress', { step: 1 });
    const got = collect(bus.subscribe('r1'));
    await new Promise((r) => setImmediate(r));
    bus.publish('r1', 'progress', { step: 2 });
    bus.publish('r1', 'result', { response: 'ok' });
    bus.end('r1');
    const events = await got;
    expect(events.map((e) => e.event)).toEqual(['metadata', 'progress', 'progress', 'result']);
    expect(events.map((e) => Number(e.id))).toEqual([1, 2, 3, 4]);
    expect(events[3].data).toEqual({ response: 'ok' });
  });

  it('replays only what came after Last-Event-ID', async () => {
    for (let i = 1; i <= 4; i++) bus.publish('r2', 'progress', { step: i });
    bus.end('r2');
    const events = await collect(bus.subscribe('r2', { lastEventId: '2' }));
    expect(events.map((e) => (e.data as { step: number }).step)).toEqual([3, 4]);
  });

  it('keeps a bounded window per run', async () => {
    for (let i = 1; i <= 20; i++) bus.publish('r3', 'progress', { step: i });
    bus.end('r3');
    const events = await collect(bus.subscribe('r3'));
    // the window holds 5 entries; the last is `end`
    expect(events.map((e) => (e.data as { step: number }).step)).toEqual([17, 18, 19, 20]);
  });

  it('never blocks publish on a slow consumer, which skips what was trimmed', async () => {
    const sub = bus.subscribe('r4')[Symbol.asyncIterator]();
    bus.publish('r4', 'progress', { step: 1 });
    const first = await sub.next();
    expect(first.value).toMatchObject({ event: 'progress', data: { step: 1 } });
    // the consumer does not read while 100 events are published: publish returns each time
    for (let i = 2; i <= 101; i++) bus.publish('r4', 'progress', { step: i });
    bus.end('r4');
    const rest: number[] = [];
    for (let r = await sub.next(); !r.done; r = await sub.next()) rest.push((r.value.data as { step: number }).step);
    expect(rest).toEqual([98, 99, 100, 101]);
  });

  it('waits for a run that has not published yet, and stops when the signal aborts', async () => {
    const stop = new AbortController();
    const got = collect(bus.subscribe('r5', { signal: stop.signal }));
    bus.publish('r5', 'metadata', { run_id: 'r5' });
    await new Promise((r) => setImmediate(r));
    stop.abort();
    expect((await got).map((e) => e.event)).toEqual(['metadata']);
  });

  it('finishes at once for a run whose window has expired', async () => {
    const short = new InProcessRunEventBus(5, 20);
    short.publish('r6', 'result', {});
    short.end('r6');
    await expect(collect(short.subscribe('r6'))).resolves.toHaveLength(1);
    await new Promise((r) => setTimeout(r, 40));
    await expect(collect(short.subscribe('r6'))).resolves.toEqual([]);
    short.onModuleDestroy();
  });

  it('keeps the windows of ended runs within a byte budget, dropping the oldest first', async () => {
    const small = new InProcessRunEventBus(5, 60_000, 100);
    try {
      for (let i = 1; i <= 5; i++) {
        small.publish(`e${i}`, 'result', { text: 'x'.repeat(30) }); // 41 bytes of JSON, 45 with `end`
        small.end(`e${i}`);
      }
      await expect(collect(small.subscribe('e1'))).resolves.toEqual([]);
      await expect(collect(small.subscribe('e3'))).resolves.toEqual([]);
      await expect(collect(small.subscribe('e4'))).resolves.toHaveLength(1);
      await expect(collect(small.subscribe('e5'))).resolves.toHaveLength(1);
    } finally {
      small.onModuleDestroy();
    }
  });

  it('publishes plain JSON copies', async () => {
    const data = { list: [1] };
    bus.publish('r7', 'x', data);
    data.list.push(2);
    bus.end('r7');
    expect((await collect(bus.subscribe('r7')))[0].data).toEqual({ list: [1] });
  });
});
