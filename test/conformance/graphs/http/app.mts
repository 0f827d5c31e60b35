import { Client } from '@langchain/langgraph-sdk';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { streamText } from 'hono/streaming';

/** what the last webhook brought (a run's relative webhook, "/hooks/run") */
let lastWebhook: Record<string, unknown> | null = null;

/**
 * The conformance suite's http.app: middleware that answers or marks every response (the API's included),
 * one that rewrites a thread's creation body from a header, and routes of each kind a platform app has.
 */
export const app = new Hono()
  .use(async (c, next) => {
    if (c.req.query('blocked') !== undefined) return c.json({ blocked: c.req.path }, 403);
    await next();
    c.header('x-conformance', `seen ${c.req.method} ${c.res.status}`);
  })
  .use(async (c, next) => {
    const note = c.req.header('x-note');
    if (c.req.method === 'POST' && c.req.path === '/threads' && note) {
      const body = (await c.req.raw.json()) as { metadata?: Record<string, unknown> };
      const changed = { ...body, metadata: { ...body.metadata, note } };
      c.req.raw = new Request(c.req.raw.url, { method: 'POST', headers: c.req.raw.headers, body: JSON.stringify(changed) });
    }
    await next();
  })
  .get('/hello/:name', (c) => c.json({ hello: c.req.param('name'), echo: c.req.header('x-in') ?? null }, 200, { 'x-out': 'yes' }))
  .get('/teapot', () => {
    throw new HTTPException(418, { message: 'short and stout' });
  })
  .get('/count', (c) =>
    streamText(c, async (stream) => {
      for (let i = 0; i < 3; i++) {
        await stream.writeln(`tick ${i}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }),
  )
  .post('/threads-via-client', async (c) => {
    const thread = await new Client().threads.create({ metadata: { via: 'client' } });
    const found = await new Client().threads.get(thread.thread_id);
    return c.json({ metadata: found.metadata, same: found.thread_id === thread.thread_id });
  })
  .post('/hooks/run', async (c) => {
    lastWebhook = await c.req.json();
    return c.json({ ok: true });
  })
  .get('/hooks/last', (c) => c.json(lastWebhook))
  .notFound((c) => c.json({ app: 'not found' }, 404));
