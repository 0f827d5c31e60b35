import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';

import { frame, lastEventIdOf, SSE_HEARTBEAT, SSE_HEARTBEAT_MS, type SseEvent, type SseProfile, SseWriter } from './sse-writer';

type FakeResponse = ServerResponse & { writes: string[]; ended: boolean; headers: Record<string, string>; full: boolean };

/** A response that records its headers and writes; `full` makes `write` report a full socket buffer. */
function fakeResponse(): FakeResponse {
  const res = Object.assign(new EventEmitter(), {
    writes: [] as string[],
    headers: {} as Record<string, string>,
    ended: false,
    full: false,
    statusCode: 0,
    setHeader: (name: string, value: string) => void (res.headers[name] = value),
    flushHeaders: () => undefined,
    write: (text: string) => (res.writes.push(text), !res.full),
    end: () => void (res.ended = true),
  });
  return res as unknown as FakeResponse;
}

const LAST: SseProfile = { idField: 'last', charset: false, cacheControl: 'no-cache', headers: { 'Content-Location': '/runs/r1' } };
const FIRST: SseProfile = { idField: 'first', charset: true, cacheControl: 'no-cache, no-transform' };

async function* events(list: SseEvent[]): AsyncIterable<SseEvent> {
  for (const e of list) yield await Promise.resolve(e);
}

afterEach(() => jest.useRealTimers());

describe('frame', () => {
  it('puts the id where each dialect puts it, and null for no data', () => {
    expect(frame(FIRST, { event: 'token', data: { a: 1 }, id: '3' })).toBe('id: 3\nevent: token\ndata: {"a":1}\n\n');
    expect(frame(LAST, { event: 'values', data: undefined, id: '3' })).toBe('event: values\ndata: null\nid: 3\n\n');
    expect(frame(LAST, { event: 'end', data: 1 })).toBe('event: end\ndata: 1\n\n');
  });

  it('writes data already encoded by the run event bus as it is, without encoding it again', () => {
    const stringify = jest.spyOn(JSON, 'stringify');
    try {
      expect(frame(FIRST, { event: 'token', data: { content: 'hi' }, id: '1-0', json: '{"content":"hi"}' })).toBe(
        'id: 1-0\nevent: token\ndata: {"content":"hi"}\n\n',
      );
      expect(stringify).not.toHaveBeenCalled();
    } finally {
      stringify.mockRestore();
    }
  });
});

describe('SseWriter', () => {
  it("sets the profile's headers and status before any event", () => {
    const res = fakeResponse();
    new SseWriter(res, LAST, { heartbeatMs: 0 });
    expect(res.statusCode).toBe(200);
    expect(res.headers).toEqual({
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      'Content-Location': '/runs/r1',
    });
    expect(new SseWriter(fakeResponse(), FIRST, { heartbeatMs: 0 })).toBeDefined();
  });

  it('writes the events of one event-loop turn as one write, in order', () => {
    jest.useFakeTimers();
    const res = fakeResponse();
    const sse = new SseWriter(res, FIRST, { heartbeatMs: 0 });
    sse.send('token', 'Hel', '1-0');
    sse.send('token', 'lo', '1-1');
    expect(res.writes).toEqual([]);
    jest.runOnlyPendingTimers();
    expect(res.writes).toEqual(['id: 1-0\nevent: token\ndata: "Hel"\n\nid: 1-1\nevent: token\ndata: "lo"\n\n']);
  });

  it('sends a heartbeat comment only after the interval passes without a write', () => {
    jest.useFakeTimers();
    const res = fakeResponse();
    const sse = new SseWriter(res, FIRST, { heartbeatMs: 1000 });
    jest.advanceTimersByTime(600);
    sse.send('progress', 1);
    jest.advanceTimersByTime(600); // 1200 ms since the start, 600 since the event was written
    expect(res.writes).toEqual(['event: progress\ndata: 1\n\n']);
    jest.advanceTimersByTime(400);
    expect(res.writes).toEqual(['event: progress\ndata: 1\n\n', SSE_HEARTBEAT]);
    jest.advanceTimersByTime(1000);
    expect(res.writes.filter((w) => w === SSE_HEARTBEAT)).toHaveLength(2);
    sse.end();
    jest.advanceTimersByTime(5000);
    expect(res.writes).toHaveLength(3);
  });

  it('defaults to a heartbeat every 15 s', () => {
    jest.useFakeTimers();
    const res = fakeResponse();
    new SseWriter(res, LAST);
    jest.advanceTimersByTime(SSE_HEARTBEAT_MS - 1);
    expect(res.writes).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(res.writes).toEqual([SSE_HEARTBEAT]);
    res.emit('close');
  });

  it('writes what is pending before it ends the response', () => {
    const res = fakeResponse();
    const sse = new SseWriter(res, LAST, { heartbeatMs: 0 });
    sse.send('end', null);
    sse.end();
    expect(res.writes).toEqual(['event: end\ndata: null\n\n']);
    expect(res.ended).toBe(true);
    expect(sse.signal.aborted).toBe(true);
  });

  it('writes nothing once the client has gone, aborts its signal and stops the heartbeat', () => {
    jest.useFakeTimers();
    const res = fakeResponse();
    const sse = new SseWriter(res, FIRST, { heartbeatMs: 1000 });
    sse.send('token', 'x');
    res.emit('close');
    expect(sse.signal.aborted).toBe(true);
    sse.send('token', 'y');
    jest.advanceTimersByTime(10_000);
    sse.end();
    expect(res.writes).toEqual([]);
    expect(res.ended).toBe(false);
    expect(sse.isClosed).toBe(true);
  });

  it('holds further writes while the socket is full and writes them, batched, on drain', () => {
    jest.useFakeTimers();
    const res = fakeResponse();
    const sse = new SseWriter(res, FIRST, { heartbeatMs: 0 });
    res.full = true;
    sse.send('a', 1);
    jest.runOnlyPendingTimers();
    sse.send('b', 2);
    sse.send('c', 3);
    jest.runOnlyPendingTimers();
    expect(res.writes).toEqual(['event: a\ndata: 1\n\n']);
    res.full = false;
    res.emit('drain');
    expect(res.writes).toEqual(['event: a\ndata: 1\n\n', 'event: b\ndata: 2\n\nevent: c\ndata: 3\n\n']);
  });

  it('keeps its heartbeat through a full socket, and sends none while it is full', () => {
    jest.useFakeTimers();
    const res = fakeResponse();
    const sse = new SseWriter(res, FIRST, { heartbeatMs: 1000 });
    res.full = true;
    sse.send('a', 1);
    jest.runOnlyPendingTimers(); // the write: the socket is full now
    jest.advanceTimersByTime(2500);
    expect(res.writes).toEqual(['event: a\ndata: 1\n\n']);
    res.full = false;
    res.emit('drain');
    jest.advanceTimersByTime(1000);
    expect(res.writes).toEqual(['event: a\ndata: 1\n\n', SSE_HEARTBEAT]);
    sse.end();
  });

  it('pipe waits for a drain before it takes the next event, and ends the stream', async () => {
    const res = fakeResponse();
    const sse = new SseWriter(res, LAST, { heartbeatMs: 0 });
    res.full = true;
    let taken = 0;
    async function* counted(): AsyncIterable<SseEvent> {
      for (const id of ['1', '2', '3']) {
        taken++;
        yield { event: 'values', data: id, id };
        await new Promise((r) => setImmediate(r)); // a run event bus read: the flush happens in between
      }
    }
    const piping = sse.pipe(counted());
    await new Promise((r) => setTimeout(r, 20));
    // the first write found the socket full: the second event waits unwritten, the third is not asked for
    expect(taken).toBe(2);
    expect(res.writes).toHaveLength(1);
    res.full = false;
    res.emit('drain');
    await piping;
    expect(taken).toBe(3);
    expect(res.writes.join('')).toBe(
      'event: values\ndata: "1"\nid: 1\n\nevent: values\ndata: "2"\nid: 2\n\nevent: values\ndata: "3"\nid: 3\n\n',
    );
    expect(res.ended).toBe(true);
  });

  it('pipe stops taking events when the client leaves', async () => {
    const res = fakeResponse();
    const sse = new SseWriter(res, LAST, { heartbeatMs: 0 });
    let taken = 0;
    async function* endless(): AsyncIterable<SseEvent> {
      for (;;) {
        taken++;
        if (taken === 3) res.emit('close');
        yield await Promise.resolve({ event: 'x', data: taken });
      }
    }
    await sse.pipe(endless());
    expect(taken).toBe(3);
    expect(res.writes).toEqual([]);
    await sse.pipe(events([{ event: 'late', data: 1 }]));
    expect(res.writes).toEqual([]);
  });
});

describe('lastEventIdOf', () => {
  it.each([
    ['12', '12'],
    [' 1700000000000-0 ', '1700000000000-0'],
    [['5', '6'], '5'],
    ['', undefined],
    ['   ', undefined],
    [undefined, undefined],
    ['a b', undefined],
    ['x'.repeat(129), undefined],
    ['7\u0000', undefined],
    ['한', undefined],
  ])('%j → %j', (value, expected) => {
    expect(lastEventIdOf(value as string | string[] | undefined)).toBe(expected);
  });
});
