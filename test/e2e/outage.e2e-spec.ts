import { Client } from 'pg';

import { agentTexts } from '../../src/agents/shared/messages';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase, uniqueQueuePrefix } from '../support/infra';
import { TcpProxy } from '../support/tcp-proxy';
import { http, type RunningApp, startApp, waitFor } from '../support/test-app';

/** Database or Redis unreachable → 503 with an error code; the service recovers when they return. */
describe('infrastructure outages', () => {
  let db: TestDatabase;
  const pgProxy = new TcpProxy('127.0.0.1', 5432);
  const redisUrl = new URL(TEST_REDIS_URL);
  const redisProxy = new TcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
  let svc: RunningApp;

  beforeAll(async () => {
    db = await createTestDatabase('outage');
    await pgProxy.start();
    await redisProxy.start();
    const viaProxy = new URL(db.url);
    viaProxy.port = String(pgProxy.port);
    svc = await startApp({
      DATABASE_URL: viaProxy.toString(),
      REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
      QUEUE_PREFIX: uniqueQueuePrefix('outage'),
      RUN_WORKER: 'false',
    });
  });

  afterAll(async () => {
    await svc?.close();
    await pgProxy.stop();
    await redisProxy.stop();
    await db?.drop();
  });

  it('answers 503 DATABASE_UNAVAILABLE while Postgres is unreachable, then recovers', async () => {
    expect((await http(svc.url, 'POST', '/v1/chat', { message: '1+1' })).status).toBe(200);
    pgProxy.cut();
    try {
      const res = await http(svc.url, 'POST', '/v1/chat', { message: '1+1' });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('DATABASE_UNAVAILABLE');
      expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|\.js:\d+/);
      const ready = await http(svc.url, 'GET', '/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.database.status).toBe('down');
      expect((await http(svc.url, 'GET', '/health/live')).status).toBe(200);
    } finally {
      pgProxy.restore();
    }
    const again = await http(svc.url, 'POST', '/v1/chat', { message: '2+2' });
    expect(again.status).toBe(200);
    expect(again.body.response).toBe('2+2 = 4');
  });

  it('answers 503 QUEUE_UNAVAILABLE while Redis is unreachable and records the refused run as failed', async () => {
    const ok = await http(svc.url, 'POST', '/v1/jobs', { message: '1+1' });
    expect(ok.status).toBe(202);
    redisProxy.cut();
    let refusedSession: string | undefined;
    try {
      // the service has noticed: its readiness reports Redis down
      await waitFor(async () => ((await http(svc.url, 'GET', '/health/ready')).body?.checks?.redis?.status === 'down' ? true : undefined));
      const res = await http(svc.url, 'POST', '/v1/jobs', { message: '3+3' });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('QUEUE_UNAVAILABLE');
      const ready = await http(svc.url, 'GET', '/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.redis.status).toBe('down');
      const c = new Client({ connectionString: db.url });
      await c.connect();
      const { rows } = await c.query(`SELECT status, error, result->>'response' AS response FROM runs WHERE input->>'message' = '3+3'`);
      await c.end();
      // ended through the one end path: its reply is the user-facing text (not a key, not nothing)
      expect(rows).toEqual([
        { status: 'failed', error: expect.objectContaining({ code: 'QUEUE_UNAVAILABLE' }), response: agentTexts('en').internalError },
      ]);
      refusedSession = 'checked';
    } finally {
      redisProxy.restore();
    }
    expect(refusedSession).toBe('checked');
    // ioredis reconnects on its own
    const status = await waitFor(
      async () => {
        const s = (await http(svc.url, 'POST', '/v1/jobs', { message: '4+4' })).status;
        return s === 202 ? s : undefined;
      },
      10_000,
      200,
    );
    expect(status).toBe(202);
  });
});
