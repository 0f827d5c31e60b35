import { EventEmitter } from 'node:events';

import type { Response } from 'express';

import { SseStream } from './sse';

/** An Express response that records its writes. */
function fakeResponse(): Response & { writes: string[]; ended: boolean } {
  const res = Object.assign(new EventEmitter(), {
    writes: [] as string[],
    ended: false,
    status: () => res,
    setHeader: () => res,
    flushHeaders: () => undefined,
    write: (text: string) => res.writes.push(text) > 0,
    end: () => {
      res.ended = true;
    },
  });
  return res as unknown as Response & { writes: string[]; ended: boolean };
}

const nextTurn = () => new Promise((r) => setImmediate(r));

describe('SseStream', () => {
  it('writes the events of one event-loop turn at once, in order, with their ids', async () => {
    const res = fakeResponse();
    const sse = new SseStream(res);
    sse.send('token', { content: 'Hel' }, '1-0');
    sse.send('token', { content: 'lo' }, '1-1');
    expect(res.writes).toEqual([]);
    await nextTurn();
    expect(res.writes).toEqual(['id: 1-0\nevent: token\ndata: {"content":"Hel"}\n\nid: 1-1\nevent: token\ndata: {"content":"lo"}\n\n']);
    sse.send('progress', { step: 1 });
    await nextTurn();
    expect(res.writes[1]).toBe('event: progress\ndata: {"step":1}\n\n');
  });

  it('writes what is pending before it ends the response', () => {
    const res = fakeResponse();
    const sse = new SseStream(res);
    sse.send('result', { response: 'ok' });
    sse.end();
    expect(res.writes).toEqual(['event: result\ndata: {"response":"ok"}\n\n']);
    expect(res.ended).toBe(true);
  });

  it('writes nothing once the client has gone', async () => {
    const res = fakeResponse();
    const sse = new SseStream(res);
    sse.send('token', { content: 'x' });
    res.emit('close');
    sse.send('token', { content: 'y' });
    await nextTurn();
    sse.end();
    expect(res.writes).toEqual([]);
    expect(sse.isClosed).toBe(true);
  });
});
