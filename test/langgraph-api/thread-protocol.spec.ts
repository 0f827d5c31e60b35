import { randomUUID } from 'node:crypto';
import path from 'node:path';

import { Client } from '@langchain/langgraph-sdk';

import { useService } from '../support/service-fixture';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'graphs');
const CONFIG = path.join(FIXTURES, 'langgraph.protocol.json');
const T1 = 'proto-tenant-one-key-0123456789';
const T2 = 'proto-tenant-two-key-0123456789';
const JSON_T1 = { 'content-type': 'application/json', 'x-api-key': T1 };

interface Envelope {
  type: string;
  seq?: number;
  event_id?: string;
  method?: string;
  params?: { namespace: string[]; data: Record<string, unknown> & { event?: string } };
  result?: Record<string, unknown>;
  error?: string;
  message?: string;
}

async function command(url: string, threadId: string, id: number, method: string, params: Record<string, unknown> = {}, key = T1) {
  const res = await fetch(`${url}/threads/${threadId}/commands`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ id, method, params }),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: (res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : { type: 'http', message: text }) as Envelope,
  };
}

/** The thread's SSE events until `until` holds for one (or `ms` pass). */
async function events(url: string, threadId: string, body: Record<string, unknown>, until: (e: Envelope) => boolean, ms = 15_000) {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), ms);
  const out: Envelope[] = [];
  try {
    const res = await fetch(`${url}/threads/${threadId}/stream/events`, {
      method: 'POST',
      headers: { ...JSON_T1, accept: 'text/event-stream' },
      body: JSON.stringify(body),
      signal: ac.signal,
    });
    if (res.status !== 200) throw new Error(`stream: ${res.status} ${await res.text()}`);
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      let cut: number;
      while ((cut = text.indexOf('\n\n')) >= 0) {
        const frame = text.slice(0, cut);
        text = text.slice(cut + 2);
        const data = frame.split('\n').find((l) => l.startsWith('data: '));
        if (!data) continue;
        const e = JSON.parse(data.slice(6)) as Envelope;
        out.push(e);
        if (until(e)) return out;
      }
    }
  } catch (e) {
    if (!ac.signal.aborted) throw e;
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return out;
}

/** The first `n` items of an iterable (fewer when it ends or `ms` pass). */
async function take<T>(iterable: AsyncIterable<T>, n: number, ms = 15_000): Promise<T[]> {
  const out: T[] = [];
  const it = iterable[Symbol.asyncIterator]();
  const deadline = Date.now() + ms;
  while (out.length < n) {
    const next = await Promise.race([it.next(), new Promise<null>((r) => setTimeout(() => r(null), Math.max(0, deadline - Date.now())))]);
    if (!next || next.done) break;
    out.push(next.value);
  }
  void it.return?.();
  return out;
}

function within<T>(p: PromiseLike<T>, ms = 15_000): Promise<T> {
  return Promise.race([
    Promise.resolve(p),
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms)),
  ]);
}

const HI = { messages: [{ role: 'user', content: 'hi' }] };

const terminal = (e: Envelope) => e.method === 'lifecycle' && e.params?.namespace.length === 0 && e.params.data.event !== 'running';

function suite(label: string, redis: boolean) {
  describe(`thread event protocol (${label})`, () => {
    const svc = useService(`proto${redis ? 'r' : 'i'}`, { redis, env: { LANGGRAPH_CONFIG: CONFIG, API_KEYS: `t1:${T1},t2:${T2}` } });

    it('run.start creates the thread and streams lifecycle, values, updates, messages, tools and custom events with one seq each', async () => {
      const threadId = randomUUID();
      const started = await command(svc.url, threadId, 1, 'run.start', {
        assistant_id: 'proto',
        input: { messages: [{ role: 'user', content: 'hi' }] },
      });
      expect(started.status).toBe(200);
      expect(started.body).toMatchObject({ type: 'success', id: 1, result: { run_id: expect.any(String) } });
      const all = await events(
        svc.url,
        threadId,
        { channels: ['lifecycle', 'values', 'updates', 'messages', 'tools', 'custom', 'checkpoints', 'tasks', 'input'] },
        terminal,
      );
      const methods = all.map((e) => e.method);
      expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
      expect(all.map((e) => e.event_id)).toEqual(all.map((e) => String(e.seq)));
      expect(all[0]).toMatchObject({ method: 'lifecycle', params: { namespace: [], data: { event: 'running', graph_name: 'proto' } } });
      expect(all.at(-1)).toMatchObject({ method: 'lifecycle', params: { data: { event: 'completed' } } });
      for (const m of ['values', 'updates', 'messages', 'tools', 'custom', 'checkpoints', 'tasks']) expect(methods).toContain(m);
      const messageEvents = all.filter((e) => e.method === 'messages').map((e) => e.params!.data.event);
      expect(messageEvents[0]).toBe('message-start');
      expect(messageEvents).toContain('content-block-delta');
      expect(messageEvents.at(-1)).toBe('message-finish');
      const tools = all.filter((e) => e.method === 'tools').map((e) => e.params!.data.event);
      expect(tools).toEqual(['tool-started', 'tool-finished']);
      const custom = all.filter((e) => e.method === 'custom').map((e) => e.params!.data);
      expect(custom).toEqual([{ payload: { step: 'thinking' } }, { name: 'progress', payload: { pct: 50 } }]);
      const last = all.filter((e) => e.method === 'values').at(-1)!;
      expect((last.params!.data.messages as Array<{ content: string }>).map((m) => m.content)).toEqual(['hi', 'echo hi', '', 'found: x']);

      // replay after a seq: the same ids, in order, none missing
      const after = await events(svc.url, threadId, { channels: ['lifecycle', 'values'], since: 3 }, terminal);
      const expected = all.filter((e) => (e.method === 'lifecycle' || e.method === 'values') && e.seq! > 3);
      expect(after.map((e) => [e.seq, e.method])).toEqual(expected.map((e) => [e.seq, e.method]));
    });

    it("the SDK's ThreadStream (SSE): values, messages, toolCalls, extensions and a raw subscription", async () => {
      const client = new Client({ apiUrl: svc.url, apiKey: T1, callerOptions: { maxRetries: 0 } });
      const thread = client.threads.stream({ assistantId: 'proto' });
      try {
        const raw = await thread.subscribe(['custom']);
        const progress = thread.extensions.progress;
        await thread.run.start({ input: HI });
        const output = (await within(thread.output)) as { messages: Array<{ content: unknown }> };
        expect(output.messages.map((m) => m.content)).toEqual(['hi', 'echo hi', '', 'found: x']);
        const [message] = await take(thread.messages, 1);
        expect((await within(message!.output)).content).toEqual([{ type: 'text', text: 'echo hi' }]);
        const [call] = await take(thread.toolCalls, 1);
        expect(call).toMatchObject({ name: 'lookup', input: { q: 'x' } });
        expect(await within(call!.output)).toBe('found: x');
        expect(await within(progress)).toEqual({ pct: 50 });
        const customs = await take(raw, 2);
        expect(customs.map((e) => (e as { params: { data: unknown } }).params.data)).toEqual([
          { payload: { step: 'thinking' } },
          { name: 'progress', payload: { pct: 50 } },
        ]);
      } finally {
        await thread.close();
      }
    });

    it('input.respond resumes an interrupt by id; listCheckpoints, fork (forkFrom) and inject run on the thread', async () => {
      const client = new Client({ apiUrl: svc.url, apiKey: T1, callerOptions: { maxRetries: 0 } });
      const threadId = randomUUID();
      const thread = client.threads.stream(threadId, { assistantId: 'proto' });
      try {
        await thread.run.start({ input: { ...HI, ask: true } });
        const asked = await events(svc.url, threadId, { channels: ['lifecycle', 'input'] }, terminal);
        const request = asked.find((e) => e.method === 'input.requested')!;
        expect(request.params!.data).toMatchObject({ interrupt_id: expect.any(String), payload: { question: 'approve?' } });
        expect(asked.at(-1)!.params!.data.event).toBe('interrupted');

        const wrong = await command(svc.url, threadId, 7, 'input.respond', { interrupt_id: 'nope', response: 'yes' });
        expect(wrong.body).toMatchObject({ type: 'error', id: 7, error: 'no_such_interrupt' });
        const answered = await command(svc.url, threadId, 8, 'input.respond', {
          interrupt_id: request.params!.data.interrupt_id,
          response: 'yes',
        });
        expect(answered.body).toMatchObject({ type: 'success', id: 8 });
        const since = asked.at(-1)!.seq;
        await events(svc.url, threadId, { channels: ['lifecycle'], since }, terminal);
        const state = await command(svc.url, threadId, 9, 'state.get', { keys: ['approved'] });
        expect(state.body.result).toMatchObject({ values: { approved: 'yes' }, checkpoint: { id: expect.any(String) } });
        expect(Object.keys(state.body.result!.values as object)).toEqual(['approved']);

        const listed = (await within(thread.state.listCheckpoints({ limit: 50 }))) as unknown as {
          checkpoints: Array<{ id: string; step: number }>;
        };
        expect(listed.checkpoints.length).toBeGreaterThan(3);
        const first = listed.checkpoints.at(-1)!; // the oldest: before any node ran
        const forked = (await within(
          thread.state.fork({ checkpoint_id: first.id, input: { messages: [{ role: 'user', content: 'again' }] } }),
        )) as unknown as {
          run_id: string;
          thread_id: string;
        };
        expect(forked).toMatchObject({ run_id: expect.any(String), thread_id: threadId });
        const gone = await command(svc.url, threadId, 10, 'state.fork', { checkpoint_id: randomUUID() });
        expect(gone.body).toMatchObject({ type: 'error', error: 'no_such_checkpoint' });

        const injected = await command(svc.url, threadId, 11, 'input.inject', {
          namespace: [],
          message: { role: 'user', content: 'more' },
        });
        expect(injected.body).toMatchObject({ type: 'success', result: { run_id: expect.any(String) } });
        const unknown = await command(svc.url, threadId, 12, 'no.such', {});
        expect(unknown.body).toMatchObject({ type: 'error', id: 12, error: 'unknown_command' });
        const bad = await command(svc.url, threadId, 13, 'run.start', { input: HI });
        expect(bad.body).toMatchObject({
          type: 'error',
          id: 13,
          error: 'invalid_argument',
          message: 'run.start requires an assistant_id.',
        });
      } finally {
        await thread.close();
      }
    });

    it('multitask reject refuses a second run.start while one is in flight; the default enqueue accepts it', async () => {
      const threadId = randomUUID();
      const first = await command(svc.url, threadId, 1, 'run.start', { assistant_id: 'proto', input: { ...HI, delay_ms: 1500 } });
      expect(first.body.type).toBe('success');
      const refused = await command(svc.url, threadId, 2, 'run.start', { assistant_id: 'proto', input: HI, multitaskStrategy: 'reject' });
      expect(refused.body).toMatchObject({ type: 'error', id: 2, error: 'invalid_argument' });
      const queued = await command(svc.url, threadId, 3, 'run.start', { assistant_id: 'proto', input: HI });
      expect(queued.body.type).toBe('success');
      const runs = (await (await fetch(`${svc.url}/threads/${threadId}/runs`, { headers: JSON_T1 })).json()) as Array<{ run_id: string }>;
      expect(runs.map((r) => r.run_id).sort()).toEqual([first.body.result!.run_id, queued.body.result!.run_id].sort());
    });

    it('forkFrom (config.configurable.checkpoint_id) starts the run from that checkpoint', async () => {
      const client = new Client({ apiUrl: svc.url, apiKey: T1, callerOptions: { maxRetries: 0 } });
      const threadId = randomUUID();
      const thread = client.threads.stream(threadId, { assistantId: 'proto' });
      try {
        await thread.run.start({ input: HI });
        await within(thread.output);
        const listed = (await within(thread.state.listCheckpoints({ limit: 50 }))) as unknown as { checkpoints: Array<{ id: string }> };
        const oldest = listed.checkpoints.at(-1)!.id;
        await thread.submitRun({ input: { messages: [{ role: 'user', content: 'other' }] }, forkFrom: oldest });
        let contents: unknown[] = [];
        for (let i = 0; i < 100; i += 1) {
          const state = await command(svc.url, threadId, 100 + i, 'state.get');
          contents = ((state.body.result!.values as { messages?: Array<{ content: unknown }> }).messages ?? []).map((m) => m.content);
          if (contents.includes('found: x') && contents.includes('other')) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        expect(contents).toEqual(['other', 'echo other', '', 'found: x']); // the first turn is not in the fork's history
      } finally {
        await thread.close();
      }
    });

    it("another tenant's thread is not found: its commands are refused and its stream shows nothing of it", async () => {
      const threadId = randomUUID();
      await command(svc.url, threadId, 1, 'run.start', { assistant_id: 'proto', input: HI });
      // another tenant's id is one that does not exist in its own tenant: its stream waits for a thread of its own
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 1500);
      const seen: string[] = [];
      try {
        const res = await fetch(`${svc.url}/threads/${threadId}/stream/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': T2 },
          body: JSON.stringify({ channels: ['values', 'lifecycle'] }),
          signal: ac.signal,
        });
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) seen.push(new TextDecoder().decode(chunk));
      } catch {
        // aborted
      }
      expect(seen.join('')).toBe('');
      for (const [method, params] of [
        ['state.get', {}],
        ['state.listCheckpoints', {}],
        ['agent.getTree', {}],
        ['input.inject', { namespace: [], message: { role: 'user', content: 'x' } }],
      ] as const) {
        const res = await command(svc.url, threadId, 2, method, params, T2);
        expect([method, res.status]).toEqual([method, 404]);
      }
      const runs = (await (await fetch(`${svc.url}/threads/${threadId}/runs`, { headers: JSON_T1 })).json()) as unknown[];
      expect(runs).toHaveLength(1);
    });
  });
}

suite('in-process', false);
suite('Redis', true);
