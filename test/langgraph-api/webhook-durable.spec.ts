import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

import { Client } from '@langchain/langgraph-sdk';
import { Client as PgClient } from 'pg';

import { useService } from '../support/service-fixture';
import { startApp, waitFor } from '../support/test-app';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'graphs');

/**
 * A run's webhook is recorded with the run: the API process that accepted the run goes away before the run
 * ends, and the other process (the worker's) delivers it, retrying with backoff while the receiver fails.
 */
describe('LangGraph API: webhooks survive the accepting process', () => {
  const svc = useService('lgwebhook', {
    redis: true,
    env: { LANGGRAPH_CONFIG: path.join(FIXTURES, 'langgraph.runs.json'), WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' },
  });
  let server: Server;
  let base: string;
  const received: Array<{ status: number; body: Record<string, any> }> = [];

  beforeAll(async () => {
    // the receiver fails twice (500), then accepts
    server = createServer((req, res) => {
      let data = '';
      req.on('data', (c: Buffer) => (data += c.toString()));
      req.on('end', () => {
        const status = received.length < 2 ? 500 : 204;
        received.push({ status, body: JSON.parse(data) as Record<string, any> });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('is delivered by another process once the accepting one is gone, retried until the receiver accepts it', async () => {
    // the accepting process only enqueues (no worker); it closes while the run is still queued or running
    const accepting = await startApp({ ...svc.env, RUN_WORKER: 'false' });
    const client = new Client({ apiUrl: accepting.url, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, 'slow', { input: { ms: 100 }, webhook: `${base}/hook` });
    await accepting.close();

    await waitFor(async () => (received.length >= 3 ? true : undefined), 30_000);
    expect(received.map((r) => r.status)).toEqual([500, 500, 204]);
    for (const { body } of received) {
      expect(body).toMatchObject({ run_id: run.run_id, thread_id: thread.thread_id, status: 'success' });
      expect(typeof body.webhook_sent_at).toBe('string');
    }
    // the retries were spaced out (backoff), not sent back to back
    const sentAt = received.map((r) => Date.parse(r.body.webhook_sent_at as string));
    expect(sentAt[1] - sentAt[0]).toBeGreaterThanOrEqual(900);
    expect(sentAt[2] - sentAt[1]).toBeGreaterThanOrEqual(1900);

    // recorded as sent with the run, so no process sends it again
    const pg = new PgClient({ connectionString: svc.db.url });
    await pg.connect();
    try {
      const delivery = await waitFor(async () => {
        const { rows } = await pg.query(`SELECT input #> '{lg,webhook_delivery}' AS d FROM runs WHERE id = $1`, [run.run_id]);
        return rows[0]?.d?.done ? (rows[0].d as Record<string, unknown>) : undefined;
      });
      expect(delivery).toMatchObject({ attempts: 3, done: 'sent' });
      expect(received).toHaveLength(3);
    } finally {
      await pg.end();
    }
  });
});
