import { randomUUID } from 'node:crypto';
import path from 'node:path';

import { Client } from '@langchain/langgraph-sdk';
import { Queue } from 'bullmq';
import { Client as Pg } from 'pg';
import WebSocket from 'ws';

import { redisOptions } from '../../src/config/redis-options';
import { RUNS_QUEUE } from '../../src/runs/run.job';
import { createTestDatabase, freePort, TEST_REDIS_URL, type TestDatabase, uniqueQueuePrefix } from '../support/infra';
import { openSocket } from '../support/protocol-socket';
import { waitFor } from '../support/test-app';
import { WorkerProcess } from '../support/worker-process';

const CONFIG = path.join(__dirname, '..', 'fixtures', 'graphs', 'langgraph.protocol.json');
const CHANNELS = ['lifecycle', 'values', 'updates', 'messages', 'tools', 'custom'];

interface Event {
  seq: number;
  event_id: string;
  method: string;
  params: { namespace: string[]; data: { event?: string } };
}

const rootTerminal = (e: Event) => e.method === 'lifecycle' && e.params.namespace.length === 0 && e.params.data.event !== 'running';

/**
 * Several API processes (`src/main.ts`, RUN_WORKER=false) and a worker process over one Postgres and Redis: the
 * SDK's ThreadStream holds its WebSocket on one API process while the run executes on the worker; that API
 * process is killed (SIGKILL) mid-run, the transport reconnects to the other one, and the client sees every event
 * of the run once, in `seq` order (the thread's numbering, not a process's).
 */
describe('thread event protocol on several API processes: the API process holding the socket dies mid-run', () => {
  let db: TestDatabase;
  let prefix: string;
  const ports: number[] = [];
  const apis: WorkerProcess[] = [];
  let worker: WorkerProcess;

  beforeAll(async () => {
    db = await createTestDatabase('proto_hosts');
    prefix = uniqueQueuePrefix('proto_hosts');
    const env = { DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix, LANGGRAPH_CONFIG: CONFIG };
    ports.push(await freePort(), await freePort());
    apis.push(await WorkerProcess.startApi({ ...env, RUN_WORKER: 'false', PORT: String(ports[0]) }, 90_000));
    apis.push(await WorkerProcess.startApi({ ...env, RUN_WORKER: 'false', PORT: String(ports[1]) }, 90_000));
    worker = await WorkerProcess.start(env, 90_000);
  }, 240_000);

  afterAll(async () => {
    for (const p of [...apis, worker]) p?.kill('SIGKILL');
    const q = new Queue(RUNS_QUEUE, { connection: redisOptions(TEST_REDIS_URL), prefix });
    await q.obliterate({ force: true }).catch(() => undefined);
    await q.close();
    await db?.drop();
  });

  it('a ThreadStream over WebSocket reconnects to the other API process and sees every event once, in order; the run completes', async () => {
    const url = (i: number) => `http://127.0.0.1:${ports[i]}`;
    const connectedTo: number[] = [];
    // what a load balancer does: each new connection goes to a live API process
    const webSocketFactory = (target: string) => {
      const i = apis.findIndex((a) => a.alive);
      connectedTo.push(i);
      const u = new URL(target);
      u.port = String(ports[i]);
      return new WebSocket(u.toString()) as unknown as globalThis.WebSocket;
    };
    const client = new Client({ apiUrl: url(0), callerOptions: { maxRetries: 0 } });
    const threadId = randomUUID();
    const thread = client.threads.stream(threadId, {
      assistantId: 'proto',
      transport: 'websocket',
      webSocketFactory,
      reconnectDelayMs: () => 200,
    } as never);
    const seen: Event[] = [];
    try {
      const raw = await thread.subscribe(CHANNELS as never);
      const collected = (async () => {
        for await (const e of raw as AsyncIterable<Event>) {
          seen.push(e);
          if (rootTerminal(e)) break;
        }
      })();
      await thread.run.start({ input: { messages: [{ role: 'user', content: 'hi' }], delay_ms: 3000 } });
      await waitFor(async () => (seen.length > 0 ? true : undefined), 20_000);
      apis[0].kill('SIGKILL');
      await Promise.race([collected, new Promise((_, reject) => setTimeout(() => reject(new Error(`stalled at ${seen.length}`)), 60_000))]);
    } finally {
      await thread.close();
    }
    expect(connectedTo[0]).toBe(0);
    expect(connectedTo.slice(1)).toContain(1);

    // the run executed on the worker and completed
    const pg = new Pg({ connectionString: db.url });
    await pg.connect();
    try {
      const runs = (await pg.query('SELECT status FROM runs WHERE session_id = $1', [threadId])).rows;
      expect(runs).toEqual([{ status: 'completed' }]);
    } finally {
      await pg.end();
    }
    // the whole run as the surviving process replays it: the client saw exactly these, once each, in order
    const replay = await openSocket(url(1), threadId);
    try {
      await replay.command(1, 'subscription.subscribe', { channels: CHANNELS });
      const all = await replay
        .frame((f) => f.type === 'event' && rootTerminal(f))
        .then(() => replay.frames.filter((f) => f.type === 'event') as Event[]);
      expect(all.length).toBeGreaterThan(3);
      expect(seen.map((e) => e.seq)).toEqual(all.map((e) => e.seq));
      expect(seen.map((e) => e.event_id)).toEqual(all.map((e) => e.event_id));
      expect([...seen.map((e) => e.seq)].sort((a, b) => a - b)).toEqual(seen.map((e) => e.seq));
    } finally {
      replay.close();
    }
  }, 180_000);
});
