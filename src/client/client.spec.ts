import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { AgentClientError, createAgentClient } from './index';
import { retryAfterMs } from './retry';

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;

/** A tiny HTTP server answering each request with `handler`; `seen` records what arrived. */
async function serve(handler: Handler) {
  const seen: { method: string; url: string; headers: IncomingMessage['headers']; at: number }[] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, at: Date.now() });
    req.resume();
    req.on('end', () => handler(req, res, seen.length));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  servers.push(server);
  return { seen, client: createAgentClient({ baseUrl, apiKey: 'k-1', baseDelayMs: 10 }) };
}

const servers: Server[] = [];
afterEach(() => servers.splice(0).forEach((s) => s.close()));

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
const job = (status: string) => ({
  job_id: 'j',
  session_id: 's',
  agent: 'react',
  status,
  progress: null,
  created_at: '',
  started_at: null,
  finished_at: null,
});
const unavailable = { error: { code: 'DATABASE_UNAVAILABLE', message: 'the database is unreachable; try again shortly' } };

describe('typed client: retries', () => {
  it('retries a GET on 503 and 429, then returns the data, with the API key on every attempt', async () => {
    const { client, seen } = await serve((_req, res, n) =>
      n === 1 ? json(res, 503, unavailable, { 'retry-after': '0' }) : n === 2 ? json(res, 429, {}) : json(res, 200, job('running')),
    );
    await expect(client.jobs.get('j')).resolves.toMatchObject({ job_id: 'j', status: 'running' });
    expect(seen.map((s) => s.url)).toEqual(['/v1/jobs/j', '/v1/jobs/j', '/v1/jobs/j']);
    expect(seen.every((s) => s.headers.authorization === 'Bearer k-1')).toBe(true);
  });

  it('waits as long as retry-after says', async () => {
    const { client, seen } = await serve((_req, res, n) =>
      n === 1 ? json(res, 429, {}, { 'retry-after': '1' }) : json(res, 200, job('queued')),
    );
    await client.jobs.get('j');
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(950);
  });

  it('gives up after maxRetries and throws the service error', async () => {
    const { client, seen } = await serve((_req, res) => json(res, 503, unavailable, { 'retry-after': '0' }));
    const err = await client.sessions.get('s').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentClientError);
    expect(err).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE', message: unavailable.error.message });
    expect(seen).toHaveLength(4);
  });

  it('retries a chat POST with the same Idempotency-Key, and never a streaming POST (which has none) on 503', async () => {
    const result = { response: 'hi', session_id: 's', run_id: 'r' };
    const { client, seen } = await serve((req, res, n) =>
      req.url === '/v1/chat' && n === 1
        ? json(res, 503, unavailable)
        : req.url === '/v1/chat'
          ? json(res, 200, result)
          : json(res, 503, unavailable),
    );
    await expect(client.chat({ message: 'hi' })).resolves.toMatchObject(result);
    const keys = seen.map((s) => s.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);

    const stream = client.chat.stream({ message: 'hi' });
    await expect(stream.next()).rejects.toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE' });
    expect(seen.filter((s) => s.url === '/v1/chat/stream')).toHaveLength(1);
  });

  it('reads retry-after as seconds or an HTTP date', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });
});

describe('typed client: errors', () => {
  it('throws AgentClientError with the code and message of the body, or HTTP_<status> for a foreign answer', async () => {
    const { client } = await serve((req, res) =>
      req.url!.startsWith('/v1/jobs')
        ? json(res, 404, { error: { code: 'JOB_NOT_FOUND', message: 'job x does not exist' } })
        : res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>bad gateway</h1>'),
    );
    await expect(client.jobs.get('x')).rejects.toMatchObject({ status: 404, code: 'JOB_NOT_FOUND', message: 'job x does not exist' });
    await expect(client.agents.list()).rejects.toMatchObject({ status: 502, code: 'HTTP_502' });
  });
  it('throws NETWORK_ERROR (status 0) when the service cannot be reached', async () => {
    const { client } = await serve((_req, res) => json(res, 200, {}));
    servers.splice(0).forEach((s) => s.close());
    await expect(client.tools.list()).rejects.toMatchObject({ name: 'AgentClientError', status: 0, code: 'NETWORK_ERROR' });
  });
});

describe('typed client: jobs.wait', () => {
  it('polls until the job has ended', async () => {
    const { client, seen } = await serve((_req, res, n) => json(res, 200, job(n < 3 ? (n === 1 ? 'queued' : 'running') : 'completed')));
    await expect(client.jobs.wait('j', { intervalMs: 10 })).resolves.toMatchObject({ status: 'completed' });
    expect(seen).toHaveLength(3);
  });

  it('throws TIMEOUT when the job does not end in time', async () => {
    const { client, seen } = await serve((_req, res) => json(res, 200, job('running')));
    await expect(client.jobs.wait('j', { timeoutMs: 150, intervalMs: 20 })).rejects.toMatchObject({ status: 0, code: 'TIMEOUT' });
    expect(seen.length).toBeGreaterThan(1);
  });
});

describe('typed client: SSE', () => {
  it('yields events split across chunks, with ids, skipping comments; sends Last-Event-ID', async () => {
    const { client, seen } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const pieces = [
        ': keep-alive\n\n',
        'id: 1-0\nevent: sta',
        'tus\ndata: {"job_id":"j","status":"running",',
        '"progress":null}\n',
        '\n',
        'id: 2-0\r\nevent: result\r\ndata: {"response":"done"}\r\n\r\n',
      ];
      const next = () => (pieces.length ? res.write(pieces.shift(), () => setImmediate(next)) : res.end());
      next();
    });
    const events = [];
    for await (const e of client.jobs.events('j', { lastEventId: '0-1' })) events.push(e);
    expect(events).toEqual([
      { event: 'status', data: { job_id: 'j', status: 'running', progress: null }, id: '1-0' },
      { event: 'result', data: { response: 'done' }, id: '2-0' },
    ]);
    expect(seen[0].headers['last-event-id']).toBe('0-1');
  });

  it('reopens a job stream that breaks off before its result, resuming after the last event id', async () => {
    const { client, seen } = await serve((_req, res, n) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (n === 1) res.end('id: 1-0\nevent: status\ndata: {"status":"running"}\n\n');
      else res.end('id: 2-0\nevent: result\ndata: {"response":"done"}\n\n');
    });
    const events = [];
    for await (const e of client.jobs.events('j')) events.push(e.event);
    expect(events).toEqual(['status', 'result']);
    expect(seen.map((s) => s.headers['last-event-id'])).toEqual([undefined, '1-0']);
  });

  it('gives up on a stream that keeps ending without a result, and does not reopen a refused one', async () => {
    const { client, seen } = await serve((req, res) =>
      req.url === '/v1/jobs/gone/events'
        ? json(res, 404, { error: { code: 'JOB_NOT_FOUND', message: 'job gone does not exist' } })
        : res.writeHead(200, { 'content-type': 'text/event-stream' }).end(),
    );
    await expect(client.jobs.events('j', { reconnects: 2 }).next()).rejects.toMatchObject({ code: 'STREAM_ENDED' });
    expect(seen).toHaveLength(3);
    await expect(client.jobs.events('gone').next()).rejects.toMatchObject({ status: 404, code: 'JOB_NOT_FOUND' });
    expect(seen).toHaveLength(4);
  });
});
