import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

import { Client } from '@langchain/langgraph-sdk';

import { systemAssistantId } from '../../src/langgraph-api/assistants/assistants.service';
import { useService } from '../support/service-fixture';

const T1 = 'tenant-one-key-0123456789';
const FIXTURES = path.join(__dirname, '..', 'fixtures', 'graphs');

async function statusOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (e) {
    return (e as { status?: number }).status ?? -1;
  }
  return 200;
}

const human = (content: string) => ({ messages: [{ role: 'user', content }] });

/** What the `configured` fixture graph saw, from the last message of a run's values. */
function seenOf(values: unknown): Record<string, unknown> {
  const messages = (values as { messages: Array<{ content: string }> }).messages;
  return JSON.parse(messages.at(-1)!.content) as Record<string, unknown>;
}

/** Run options of the LangGraph Server API beyond input / command: config, context, after_seconds, webhook. */
describe('LangGraph API: run options (official SDK)', () => {
  const svc = useService('lgrunopts', {
    env: { API_KEYS: `t1:${T1}`, LANGGRAPH_CONFIG: path.join(FIXTURES, 'langgraph.runs.json'), WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' },
  });
  let c1: Client;

  beforeAll(() => {
    c1 = new Client({ apiUrl: svc.url, apiKey: T1, callerOptions: { maxRetries: 0 } });
  });

  it("an assistant's config.configurable and context reach the graph, merged with the run's (the run wins, service keys stay)", async () => {
    const assistant = await c1.assistants.create({
      graphId: 'configured',
      config: { configurable: { model: 'from-assistant', style: 'terse' } },
      context: { locale: 'fr', tone: 'dry' },
    });
    const thread = await c1.threads.create();
    const values = await c1.runs.wait(thread.thread_id, assistant.assistant_id, {
      input: human('hi'),
      config: { configurable: { model: 'from-run', thread_id: 'hijack', tenant_id: 'other', usage_collector: 1 } },
      context: { tone: 'warm' },
    });
    const seen = seenOf(values);
    expect(seen).toMatchObject({ model: 'from-run', style: 'terse', context: { locale: 'fr', tone: 'warm' } });
    expect(seen.thread_id).not.toBe('hijack');
    expect(seen.tenant_id).toBe('t1');
    const [run] = await c1.runs.list(thread.thread_id);
    expect((run as unknown as { kwargs: unknown }).kwargs).toMatchObject({
      config: { configurable: { model: 'from-run', style: 'terse' } },
      context: { tone: 'warm' },
    });

    // the graph itself, without an assistant: only the run's own
    const plain = seenOf(await c1.runs.wait(null, 'configured', { input: human('x'), config: { configurable: { style: 'long' } } }));
    expect(plain).toMatchObject({ model: null, style: 'long' });
  });

  it('after_seconds: the run stays pending until then, then runs', async () => {
    const thread = await c1.threads.create();
    const t0 = Date.now();
    const run = await c1.runs.create(thread.thread_id, 'echo', { input: human('later'), afterSeconds: 2 });
    expect(run.status).toBe('pending');
    await new Promise((r) => setTimeout(r, 1000));
    expect((await c1.runs.get(thread.thread_id, run.run_id)).status).toBe('pending');
    const values = (await c1.runs.join(thread.thread_id, run.run_id)) as { messages: Array<{ content: string }> };
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1900);
    expect(values.messages.at(-1)?.content).toBe('echo #1: later');
    expect((await c1.runs.get(thread.thread_id, run.run_id)).status).toBe('success');
  });

  it('POST /runs/cancel (cancelMany): every pending run, or runs of a thread by id; 422 without either', async () => {
    const [a, b] = [await c1.threads.create(), await c1.threads.create()];
    const running = await c1.runs.create(a.thread_id, 'slow', { input: { ms: 300 } });
    const delayed = await c1.runs.create(b.thread_id, 'echo', { input: human('never'), afterSeconds: 60 });
    for (let i = 0; i < 50 && (await c1.runs.get(a.thread_id, running.run_id)).status !== 'running'; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    await c1.runs.cancelMany({ status: 'pending' });
    expect((await c1.runs.get(b.thread_id, delayed.run_id)).status).toBe('interrupted');
    expect((await c1.runs.get(a.thread_id, running.run_id)).status).toBe('running');
    await c1.runs.cancelMany({ threadId: a.thread_id, runIds: [running.run_id] });
    await c1.runs.join(a.thread_id, running.run_id);
    expect((await c1.runs.get(a.thread_id, running.run_id)).status).toBe('interrupted');
    expect(await statusOf(c1.runs.cancelMany({}))).toBe(422);
    expect(await statusOf(c1.runs.cancelMany({ threadId: a.thread_id, runIds: ['nope'] }))).toBe(404);
  });

  it("config.tags (the assistant's and the run's) reach the graph; recursion_limit stops a longer run", async () => {
    const assistant = await c1.assistants.create({ graphId: 'configured', config: { tags: ['from-assistant'] } });
    const thread = await c1.threads.create();
    const values = await c1.runs.wait(thread.thread_id, assistant.assistant_id, { input: human('hi'), config: { tags: ['from-run'] } });
    expect(seenOf(values).tags).toEqual(expect.arrayContaining(['from-assistant', 'from-run']));

    const t2 = await c1.threads.create();
    // the SDK's wait throws the run's `__error__`
    await expect(c1.runs.wait(t2.thread_id, 'slow', { input: { ms: 1 }, config: { recursion_limit: 3 } })).rejects.toThrow(
      /"error":"GraphRecursionError","message":"Recursion limit of 3 reached/,
    );
    const t3 = await c1.threads.create();
    expect(await c1.runs.wait(t3.thread_id, 'slow', { input: { ms: 1 }, config: { recursion_limit: 25 } })).toMatchObject({ ticks: 10 });
  });

  it("durability 'exit' saves only the run's final checkpoint ('sync' each step)", async () => {
    const checkpoints = async (durability: 'exit' | 'sync') => {
      const thread = await c1.threads.create();
      await c1.runs.wait(thread.thread_id, 'slow', { input: { ms: 1 }, durability });
      return (await c1.threads.getHistory(thread.thread_id, { limit: 100 })).length;
    };
    expect(await checkpoints('exit')).toBe(1);
    expect(await checkpoints('sync')).toBeGreaterThanOrEqual(11);
  });

  it('refuses what it does not do with a 422: an unknown stream mode, an unknown durability, a recursion_limit of 0', async () => {
    const thread = await c1.threads.create();
    const post = (body: Record<string, unknown>) =>
      fetch(`${svc.url}/threads/${thread.thread_id}/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': T1 },
        body: JSON.stringify({ assistant_id: 'echo', input: human('x'), ...body }),
      });
    for (const body of [{ stream_mode: ['values', 'tokens'] }, { durability: 'often' }, { config: { recursion_limit: 0 } }]) {
      const res = await post(body);
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
    }
    // accepted without LangSmith, as the reference server does
    expect((await post({ feedback_keys: ['score'], stream_resumable: true })).status).toBe(200);
    expect(await c1.runs.list(thread.thread_id)).toHaveLength(1);
  });

  describe('webhook', () => {
    let server: Server;
    let base: string;
    const received: Array<{ path: string; body: Record<string, any> }> = [];

    beforeAll(async () => {
      server = createServer((req, res) => {
        let data = '';
        req.on('data', (c: Buffer) => (data += c.toString()));
        req.on('end', () => {
          received.push({ path: req.url ?? '', body: JSON.parse(data) as Record<string, any> });
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    const delivered = async (p: string) => {
      for (let i = 0; i < 100; i++) {
        const hit = received.find((r) => r.path === p);
        if (hit) return hit.body;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`no webhook at ${p}`);
    };

    it('POSTs the ended run (thread and stateless) to the webhook', async () => {
      const thread = await c1.threads.create();
      const run = await c1.runs.create(thread.thread_id, 'echo', { input: human('hook'), webhook: `${base}/a` });
      const body = await delivered('/a');
      expect(body).toMatchObject({
        run_id: run.run_id,
        thread_id: thread.thread_id,
        assistant_id: systemAssistantId('echo'),
        status: 'success',
        kwargs: { webhook: `${base}/a` },
      });
      expect(body.values.messages.at(-1)).toMatchObject({ content: 'echo #1: hook' });
      for (const k of ['run_started_at', 'run_ended_at', 'webhook_sent_at']) expect(typeof body[k]).toBe('string');

      await c1.runs.wait(null, 'echo', { input: human('x'), webhook: `${base}/b` });
      expect(await delivered('/b')).toMatchObject({ status: 'success' });
    });

    it('refuses a webhook on a private or loopback address not in WEBHOOK_ALLOWED_HOSTS (422)', async () => {
      const thread = await c1.threads.create();
      expect(await statusOf(c1.runs.create(thread.thread_id, 'echo', { input: human('x'), webhook: 'http://localhost:9/h' }))).toBe(422);
      expect(await statusOf(c1.runs.create(thread.thread_id, 'echo', { input: human('x'), webhook: 'http://10.1.2.3/h' }))).toBe(422);
      expect(await statusOf(c1.runs.create(thread.thread_id, 'echo', { input: human('x'), webhook: 'file:///etc/passwd' }))).toBe(422);
      expect(await c1.runs.list(thread.thread_id)).toHaveLength(0);
    });
  });
});
