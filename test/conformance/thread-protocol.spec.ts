import { randomUUID } from 'node:crypto';

import { type Side, usePair } from './support/pair';

interface Envelope {
  type: string;
  id?: number;
  seq?: number;
  event_id?: string;
  method?: string;
  error?: string;
  params?: { namespace: string[]; timestamp?: number; node?: string; data: Record<string, unknown> & { event?: string } };
  result?: Record<string, unknown>;
}

const say = (content: string) => ({ messages: [{ type: 'human', content, id: `h-${content}` }] });
const terminal = (e: Envelope) => e.method === 'lifecycle' && e.params?.namespace.length === 0 && e.params.data.event !== 'running';

/** A thread's SSE events until a terminal root lifecycle (or `ms`). */
async function events(side: Side, threadId: string, body: Record<string, unknown>, ms = 15_000): Promise<Envelope[]> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), ms);
  const out: Envelope[] = [];
  try {
    const res = await fetch(`${side.url}/threads/${threadId}/stream/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(body),
      signal: ac.signal,
    });
    let text = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      text += Buffer.from(chunk).toString('utf8');
      let cut: number;
      while ((cut = text.indexOf('\n\n')) >= 0) {
        const data = text
          .slice(0, cut)
          .split('\n')
          .find((l) => l.startsWith('data:'));
        text = text.slice(cut + 2);
        if (!data) continue;
        const e = JSON.parse(data.slice(5).trim()) as Envelope;
        out.push(e);
        if (terminal(e)) return out;
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

/** What a client reads of an event, ids and times aside: its channel, namespace, node and data. */
function shape(e: Envelope) {
  return { method: e.method, namespace: e.params?.namespace, ...(e.params?.node ? { node: e.params.node } : {}), data: e.params?.data };
}

/** An event's shape with the task ids in its namespace (`reply:<task id>`) aside. */
function taskIdsAside(e: ReturnType<typeof shape>) {
  return { ...e, namespace: e.namespace?.map((segment) => segment.replace(/:.*$/, ':<task>')) };
}

/** A command's envelope, ids and sequence numbers aside. */
function reply(e: Envelope) {
  const { meta: _, ...rest } = e as Envelope & { meta?: unknown };
  const result = rest.result && typeof rest.result.run_id === 'string' ? { ...rest.result, run_id: '<run>' } : rest.result;
  return { ...rest, ...(result ? { result } : {}), ...(rest.type === 'error' ? { message: '<text>' } : {}) };
}

async function command(side: Side, threadId: string, id: number, method: string, params: Record<string, unknown>) {
  const answer = await side.request('POST', `/threads/${threadId}/commands`, { id, method, params });
  return answer.body as Envelope;
}

/**
 * The thread event protocol beside the reference server (`@langchain/langgraph-api`, which serves it by
 * default): the same commands on the same graph give the same envelopes, channels and event order.
 */
describe('conformance: the thread event protocol over SSE', () => {
  const pair = usePair('protocol');

  it('run.start on a new thread: the same lifecycle, values and updates, in the same order', async () => {
    const seen = await pair.both(async (side) => {
      const threadId = randomUUID();
      const started = await command(side, threadId, 1, 'run.start', { assistant_id: 'chat', input: say('hi') });
      const all = await events(side, threadId, { channels: ['lifecycle', 'values', 'updates', 'input'] });
      return { started: reply(started), events: all.map(shape), seqs: all.map((e) => e.seq! - all[0]!.seq!) };
    });
    expect(seen.ours.started).toEqual(seen.reference.started);
    // each node task's lifecycle too (`reply:<task id>` started / completed), task ids normalised
    const tasks = (e: ReturnType<typeof shape>) => e.method === 'lifecycle' && (e.namespace?.length ?? 0) > 0;
    expect(seen.reference.events.filter(tasks).length).toBeGreaterThan(0);
    expect(seen.ours.events.map(taskIdsAside)).toEqual(seen.reference.events.map(taskIdsAside));
    // one increasing seq per event (the reference numbers every event of the thread, filtered ones too)
    for (const s of [seen.ours.seqs, seen.reference.seqs]) expect([...s].sort((a, b) => a - b)).toEqual(s);
  });

  it.each([
    ['a subgraph run to its end', 'nested', { topic: 'rain', city: 'Oslo' }, true],
    ['a subgraph that pauses', 'nested', { topic: 'rain' }, true],
    ['a node that throws (no task namespace: it streamed nothing)', 'failing', say('x'), false],
  ])('%s: the same lifecycle of every namespace, in the same order', async (_, graph, input, nested) => {
    const seen = await pair.both(async (side) => {
      const threadId = randomUUID();
      await command(side, threadId, 1, 'run.start', { assistant_id: graph, input });
      const all = await events(side, threadId, { channels: ['lifecycle', 'updates'] });
      return all.map(shape).map((e) => ({ ...taskIdsAside(e), data: e.method === 'lifecycle' ? e.data : '<data>' }));
    });
    const children = seen.ours.filter((e) => e.method === 'lifecycle' && (e.namespace?.length ?? 0) > 0);
    expect(children.length > 0).toBe(nested);
    // a difference: a failed run's `error` is the message; the reference's is its error body as a JSON string
    const reference = seen.reference.map((e) => {
      const error = (e.data as { error?: unknown }).error;
      if (typeof error !== 'string') return e;
      return { ...e, data: { ...(e.data as object), error: (JSON.parse(error) as { message: string }).message } };
    });
    expect(seen.ours).toEqual(reference);
  });

  it('an interrupt: input.requested, then input.respond resumes it to the end', async () => {
    const seen = await pair.both(async (side) => {
      const threadId = randomUUID();
      await command(side, threadId, 1, 'run.start', { assistant_id: 'chat', input: { ...say('hi'), ask: true } });
      const asked = await events(side, threadId, { channels: ['lifecycle', 'input'] });
      const request = asked.find((e) => e.method === 'input.requested');
      const respond = await command(side, threadId, 2, 'input.respond', {
        interrupt_id: request?.params?.data.interrupt_id,
        response: 'yes',
      });
      const state = await (async () => {
        for (let i = 0; i < 100; i += 1) {
          const s = await command(side, threadId, 3 + i, 'state.get', { keys: ['approved', 'messages'] });
          if ((s.result?.values as { approved?: string } | undefined)?.approved) return s;
          await new Promise((r) => setTimeout(r, 100));
        }
        return null;
      })();
      const values = state?.result?.values as { approved?: string; messages?: Array<{ content: unknown }> } | undefined;
      return {
        asked: asked
          .map(shape)
          .map(taskIdsAside)
          .map((e) => ({ ...e, data: { ...e.data, interrupt_id: typeof e.data?.interrupt_id } })),
        respond: reply(respond),
        approved: values?.approved,
        texts: values?.messages?.map((m) => m.content),
      };
    });
    expect(seen.ours).toEqual(seen.reference);
  });

  it('refusals: an unknown command, a run.start without assistant, input.respond with nothing to resume', async () => {
    const seen = await pair.both(async (side) => {
      const threadId = randomUUID();
      return {
        unknown: reply(await command(side, threadId, 1, 'no.such', {})),
        noAssistant: reply(await command(side, threadId, 2, 'run.start', { input: say('x') })),
      };
    });
    expect(seen.ours.noAssistant).toEqual(seen.reference.noAssistant);
    // a difference: the reference answers any command it does not know with no_such_run while no run is bound
    expect(seen.reference.unknown.error).toBe('no_such_run');
    expect(seen.ours.unknown).toEqual({ ...seen.reference.unknown, error: 'unknown_command' });
  });
});
