import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';

const lines: Array<{ obj: Record<string, unknown>; msg: string }> = [];
let infoOn = true;
jest.mock('./logger', () => ({
  processLogger: () => ({
    isLevelEnabled: () => infoOn,
    info: (obj: Record<string, unknown>, msg: string) => lines.push({ obj, msg }),
  }),
}));

import { logRequestEnd } from './request-log';

function exchange(url: string, status: number) {
  const req = {
    id: 'req-1',
    method: 'POST',
    url,
    originalUrl: url,
    tenantId: 'acme',
    principal: { userId: 'u1' },
  } as unknown as Parameters<typeof logRequestEnd>[0];
  const res = Object.assign(new EventEmitter(), { statusCode: status }) as unknown as ServerResponse;
  logRequestEnd(req, res);
  (req as { route?: { path: string } }).route = { path: '/v1/chat' }; // set by the router after this middleware
  return res;
}

describe('logRequestEnd', () => {
  beforeEach(() => {
    lines.length = 0;
    infoOn = true;
  });

  it('writes one completion line (finish, then close) with route, status, ids and no query', () => {
    const res = exchange('/v1/chat?x=1', 200);
    res.emit('finish');
    res.emit('close');
    expect(lines).toHaveLength(1);
    expect(lines[0].msg).toBe('POST /v1/chat 200');
    expect(lines[0].obj).toMatchObject({
      request_id: 'req-1',
      tenant_id: 'acme',
      user_id: 'u1',
      route: '/v1/chat',
      req: { method: 'POST', url: '/v1/chat' },
      res: { status: 200 },
    });
    expect(typeof lines[0].obj.responseTime).toBe('number');
    expect(res.listenerCount('finish') + res.listenerCount('close') + res.listenerCount('error')).toBe(0);
  });

  it('writes a 5xx or an errored response with its error', () => {
    exchange('/v1/chat', 503).emit('finish');
    const boom = new Error('socket');
    exchange('/v1/chat', 200).emit('error', boom);
    expect(lines.map((l) => l.msg)).toEqual(['request errored', 'request errored']);
    expect((lines[0].obj.err as Error).message).toBe('failed with status code 503');
    expect(lines[1].obj.err).toBe(boom);
  });

  it('leaves out health checks and scrapes, and builds nothing when info lines are off', () => {
    exchange('/health/live', 200).emit('finish');
    exchange('/metrics', 200).emit('finish');
    infoOn = false;
    exchange('/v1/chat', 200).emit('finish');
    expect(lines).toHaveLength(0);
  });
});
