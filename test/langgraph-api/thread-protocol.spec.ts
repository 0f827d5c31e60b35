import { randomUUID } from 'node:crypto';
import path from 'node:path';

import { Client } from '@langchain/langgraph-sdk';

import { useService } from '../support/service-fixture';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'graphs');
const CONFIG = path.join(FIXTURES, 'langgraph.protocol.json');

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

async function command(url: string, threadId: string, id: number, method: string, params: Record<string, unknown> = {}) {
  const res = await fetch(`${url}/threads/${threadId}/commands`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id, method, params }),
  });
  return { status: res.status, body: (await res.json()) as Envelope };
}

/** The thread's SSE events until `until` holds for one (or `ms` pass). */
async function events(url: string, threadId: string, body: Record<string, unknown>, until: (e: Envelope) => boolean, ms = 15_000) {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), ms);
  const out: Envelope[] = [];
  try {
    const res = await fetch(`${url}/threads/${threadId}/stream/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
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

const terminal = (e: Envelope) => e.method === 'lifecycle' && e.params?.namespace.length === 0 && e.params.data.event !== 'running';

function suite(label: string, redis: boolean) {
  describe(`thread event protocol (${label})`, () => {
    const svc = useService(`proto${redis ? 'r' : 'i'}`, { redis, env: { LANGGRAPH_CONFIG: CONFIG } });

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
  });
}

suite('in-process', false);
