import { normalize, type Side, usePair } from './support/pair';

interface StreamEvent {
  id?: string;
  event: string;
  data: any;
}

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

const human = (content: string, id = 'm1') => ({ type: 'human', content, id });
const slowInput = (content: string, delayMs: number) => ({ messages: [human(content)], delay_ms: delayMs });
/** a stateless run's thread kept after it (the API's `on_completion: keep`; the SDK passes it on, its type names others) */
const keep = { onCompletion: 'keep' } as unknown as { onCompletion: 'complete' };

/** The raw SSE events of a GET: status, `event` names with ids, and each event's data. */
async function sse(side: Side, route: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${side.url}${route}`, { headers });
  const text = await res.text();
  const events = text
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const field = (name: string) =>
        block
          .split('\n')
          .find((l) => l.startsWith(`${name}:`))
          ?.slice(name.length + 1)
          .trim();
      const data = field('data');
      return { id: field('id'), event: field('event') ?? '', data: data ? JSON.parse(data) : null };
    });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', events };
}

/** The routes that join a run's or a thread's stream, and the narrowing options of the threads and runs routes. */
describe('conformance: joins', () => {
  const pair = usePair('joins');

  it('GET /runs/{run_id}/stream joins a stateless run: its events to the end, the same as the reference’s', async () => {
    const seen = await pair.both(async (side) => {
      const run = await side.client.runs.create(null, 'slow', { input: slowInput('stateless', 1500), streamMode: ['values', 'updates'] });
      const events = await collect(side.client.runs.joinStream(null, run.run_id) as AsyncIterable<StreamEvent>);
      return events.map((e) => ({ event: e.event, data: normalize(e.data) }));
    });
    // the last state and the update that made it, after the run's own metadata
    const tail = (events: typeof seen.ours) => events.filter((e) => e.event !== 'metadata').slice(-2);
    expect(tail(seen.ours).map((e) => e.event)).toEqual(['updates', 'values']);
    expect(tail(seen.ours)).toEqual(tail(seen.reference));
    expect((tail(seen.ours)[1].data as any).messages.at(-1).content).toBe('done: stateless');
  });

  it('GET /runs/{run_id}/stream of an unknown run: a stream without events, as the reference answers', async () => {
    const seen = await pair.both(async (side) => {
      const r = await sse(side, '/runs/00000000-0000-4000-8000-000000000000/stream');
      return { status: r.status, sse: r.contentType.startsWith('text/event-stream'), events: r.events.length };
    });
    expect(seen.ours).toEqual({ status: 200, sse: true, events: 0 });
    expect(seen.ours).toEqual(seen.reference);
  });
  // beyond the reference (1.4.5 has none of these): what the SDK sends, as LangGraph Platform answers it
  describe('ours (routes and options the reference does not serve)', () => {
    const ours = () => pair.ours;

    it('GET /runs/{run_id}/stream with Last-Event-ID: the events after it, with the same ids', async () => {
      const c = ours().client;
      const run = await c.runs.create(null, 'slow', {
        input: slowInput('again', 300),
        streamMode: ['values', 'updates'],
        ...keep,
      });
      const all = await collect(c.runs.joinStream(null, run.run_id) as AsyncIterable<StreamEvent>);
      expect(all.length).toBeGreaterThan(2);
      const rest = await sse(ours(), `/runs/${run.run_id}/stream`, { 'Last-Event-ID': all[1].id! });
      expect(rest.events.map((e) => [e.id, e.event])).toEqual(all.slice(2).map((e) => [e.id, e.event]));
    });

    it('GET /runs/{run_id}/stream: leaving cancels the run only with cancel_on_disconnect', async () => {
      const c = ours().client;
      const statusAfterLeaving = async (cancelOnDisconnect: boolean) => {
        const run = await c.runs.create(null, 'slow', { input: slowInput('leave', 2000), ...keep });
        const gone = new AbortController();
        const joined = collect(
          c.runs.joinStream(null, run.run_id, { signal: gone.signal, cancelOnDisconnect }) as AsyncIterable<StreamEvent>,
        );
        await new Promise((r) => setTimeout(r, 500));
        gone.abort();
        await joined.catch(() => undefined);
        return (await c.runs.join(run.thread_id, run.run_id).then(() => c.runs.get(run.thread_id, run.run_id))).status;
      };
      expect(await statusAfterLeaving(false)).toBe('success');
      expect(await statusAfterLeaving(true)).toBe('interrupted');
    });

    it('GET /threads/{id}/stream: the running run, then the queued one, each closed by run_done', async () => {
      const c = ours().client;
      const thread = await c.threads.create({ graphId: 'slow' });
      const run1 = await c.runs.create(thread.thread_id, 'slow', { input: slowInput('first', 1000) });
      const run2 = await c.runs.create(thread.thread_id, 'slow', {
        input: { messages: [human('second', 'm2')] },
        multitaskStrategy: 'enqueue',
      });
      const events = await collect(c.threads.joinStream(thread.thread_id) as AsyncIterable<StreamEvent>);
      const done = events.filter((e) => e.event === 'run_done');
      expect(done.map((e) => e.data)).toEqual([
        { run_id: run1.run_id, status: 'success' },
        { run_id: run2.run_id, status: 'success' },
      ]);
      expect(done.map((e) => e.id)).toEqual([`${run1.run_id}:end`, `${run2.run_id}:end`]);
      // each run's events carry its id, in order: run 1's all before run 2's
      const owners = events.map((e) => e.id!.split(':')[0]);
      expect(owners.indexOf(run2.run_id)).toBeGreaterThan(owners.lastIndexOf(run1.run_id));
      const lastValues = events.filter((e) => e.event === 'values').at(-1)!.data;
      expect(lastValues.messages.map((m: any) => m.content)).toEqual(['first', 'done: first', 'second', 'done: second']);
    });

    it('GET /threads/{id}/stream: Last-Event-ID after a run’s end resumes with the next run; state_update carries values only', async () => {
      const c = ours().client;
      const thread = await c.threads.create({ graphId: 'slow' });
      const run1 = await c.runs.create(thread.thread_id, 'slow', { input: slowInput('first', 1000) });
      const run2 = await c.runs.create(thread.thread_id, 'slow', {
        input: { messages: [human('second', 'm2')] },
        multitaskStrategy: 'enqueue',
      });
      const resumed = await sse(ours(), `/threads/${thread.thread_id}/stream?stream_mode=state_update`, {
        'Last-Event-ID': `${run1.run_id}:end`,
      });
      expect(resumed.status).toBe(200);
      expect(resumed.events.length).toBeGreaterThan(0);
      expect(new Set(resumed.events.map((e) => e.event))).toEqual(new Set(['values']));
      expect(resumed.events.every((e) => e.id!.startsWith(`${run2.run_id}:`))).toBe(true);
    });

    it('GET /threads/{id}/stream: a client leaving mid-run does not cancel the run', async () => {
      const c = ours().client;
      const thread = await c.threads.create({ graphId: 'slow' });
      const run = await c.runs.create(thread.thread_id, 'slow', { input: slowInput('stay', 1500) });
      const gone = new AbortController();
      const joined = collect(c.threads.joinStream(thread.thread_id, { signal: gone.signal }) as AsyncIterable<StreamEvent>);
      await new Promise((r) => setTimeout(r, 500));
      gone.abort();
      await joined.catch(() => undefined);
      await c.runs.join(thread.thread_id, run.run_id);
      expect((await c.runs.get(thread.thread_id, run.run_id)).status).toBe('success');
    });

    it('GET /threads/{id}/stream: 404 for an unknown thread, 422 for an unknown stream_mode, an empty stream when nothing runs', async () => {
      const missing = await ours().request('GET', '/threads/00000000-0000-4000-8000-000000000000/stream');
      expect(missing.status).toBe(404);
      const thread = await ours().client.threads.create({ graphId: 'slow' });
      const bad = await ours().request('GET', `/threads/${thread.thread_id}/stream?stream_mode=everything`);
      expect(bad.status).toBe(422);
      const idle = await sse(ours(), `/threads/${thread.thread_id}/stream`);
      expect(idle).toMatchObject({ status: 200, events: [] });
    });

    it('GET /threads/{id}/runs?select=…: only the named fields; an unknown field is 422', async () => {
      const c = ours().client;
      const thread = await c.threads.create({ graphId: 'slow' });
      const run = await c.runs.wait(thread.thread_id, 'slow', { input: slowInput('pick', 0) });
      expect(run).toBeTruthy();
      const runs = await c.runs.list(thread.thread_id, { select: ['run_id', 'status'] });
      expect(runs).toEqual([{ run_id: expect.any(String), status: 'success' }]);
      const one = await ours().request('GET', `/threads/${thread.thread_id}/runs?select=status`);
      expect(one.body).toEqual([{ status: 'success' }]);
      const bad = await ours().request('GET', `/threads/${thread.thread_id}/runs?select=secret`);
      expect(bad.status).toBe(422);
    });

    it('PATCH /threads/{id} with Prefer: return=minimal: 204 without a body, the metadata patched', async () => {
      const thread = await ours().client.threads.create({ metadata: { a: 1 } });
      const minimal = await ours().request('PATCH', `/threads/${thread.thread_id}`, { metadata: { b: 2 } }, { Prefer: 'return=minimal' });
      expect(minimal).toMatchObject({ status: 204, body: null });
      expect((await ours().client.threads.get(thread.thread_id)).metadata).toMatchObject({ a: 1, b: 2 });
      const full = await ours().request('PATCH', `/threads/${thread.thread_id}`, { metadata: { c: 3 } });
      expect(full.status).toBe(200);
      expect(full.body.metadata).toMatchObject({ a: 1, b: 2, c: 3 });
    });
  });
});
