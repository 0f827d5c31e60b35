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
});
