import type { HealthIndicator } from './health-indicator';
import { type HealthServer, serveHealth } from './health-server';

/** An indicator whose answer the test sets: up, down, a throw, or never (the 2 s time limit). */
function indicator(name: string, answer: () => Promise<boolean>, extra: Partial<HealthIndicator> = {}): HealthIndicator {
  return { name, configured: () => true, check: answer, ...extra };
}

describe('serveHealth (the worker probes, WORKER_HEALTH_PORT)', () => {
  let server: HealthServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const get = async (path: string, method = 'GET') => {
    const res = await fetch(`http://127.0.0.1:${server!.port}${path}`, { method });
    return { status: res.status, body: method === 'HEAD' ? undefined : ((await res.json()) as Record<string, unknown>) };
  };

  it('answers liveness without consulting the indicators', async () => {
    const check = jest.fn(() => Promise.resolve(false));
    server = await serveHealth([indicator('database', check)], 0, '127.0.0.1');
    expect(await get('/health/live')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(check).not.toHaveBeenCalled();
  });

  it('is ready while every indicator is up, and reports each', async () => {
    const notConfigured = indicator('redis', () => Promise.reject(new Error('must not be checked')), { configured: () => false });
    server = await serveHealth([indicator('database', () => Promise.resolve(true)), notConfigured], 0, '127.0.0.1');
    const ready = await get('/health/ready?verbose=1');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ok', checks: { database: { status: 'up' }, redis: { status: 'not_configured' } } });
  });

  it('is not ready (503) when an indicator is down, says false, throws or times out', async () => {
    server = await serveHealth(
      [
        indicator('database', () => Promise.resolve(true)),
        indicator('redis', () => Promise.reject(new Error('ECONNREFUSED'))),
        indicator('other', () => Promise.resolve(false)),
        indicator('slow', () => new Promise<boolean>(() => undefined)),
      ],
      0,
      '127.0.0.1',
    );
    const ready = await get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({
      status: 'unavailable',
      checks: {
        database: { status: 'up' },
        redis: { status: 'down', detail: 'ECONNREFUSED' },
        other: { status: 'down' },
        slow: { status: 'down', detail: 'timed out' },
      },
    });
  });

  it('stays ready, degraded, when only an indicator that degrades is down', async () => {
    const optional = indicator('mcp', () => Promise.resolve(false), { degradesOnly: true });
    server = await serveHealth([indicator('database', () => Promise.resolve(true)), optional], 0, '127.0.0.1');
    expect(await get('/health/ready')).toMatchObject({ status: 200, body: { status: 'degraded' } });
  });

  it('answers 404 elsewhere, 405 to other methods, HEAD like GET', async () => {
    server = await serveHealth([], 0, '127.0.0.1');
    expect((await get('/health')).status).toBe(404);
    expect((await get('/metrics')).status).toBe(404);
    expect((await get('/health/live', 'POST')).status).toBe(405);
    expect((await get('/health/live', 'HEAD')).status).toBe(200);
  });

  it('refuses to start on a port already taken', async () => {
    server = await serveHealth([], 0, '127.0.0.1');
    await expect(serveHealth([], server.port, '127.0.0.1')).rejects.toThrow(/EADDRINUSE/);
  });
});
