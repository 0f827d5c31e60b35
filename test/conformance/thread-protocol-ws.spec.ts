import { randomUUID } from 'node:crypto';

import { openSocket, type SocketClient } from '../support/protocol-socket';
import { normalize, type Side, usePair } from './support/pair';

interface Envelope {
  type: string;
  id?: number | null;
  seq?: number;
  event_id?: string;
  method?: string;
  error?: string;
  params?: { namespace: string[]; timestamp?: number; node?: string; data: Record<string, unknown> & { event?: string } };
  result?: Record<string, unknown>;
}

const say = (content: string) => ({ messages: [{ type: 'human', content, id: `h-${content}` }] });
const isEvent = (e: Envelope) => e.type === 'event';
const rootLifecycle = (e: Envelope) => e.method === 'lifecycle' && e.params?.namespace.length === 0;
const terminal = (e: Envelope) => rootLifecycle(e) && e.params!.data.event !== 'running';
/** the root's lifecycle only here: node tasks' lifecycle is compared over SSE (thread-protocol.spec.ts) */
const rootOnly = (e: Envelope) => e.method !== 'lifecycle' || rootLifecycle(e);

/** What a client reads of an event, times aside: its channel, namespace, node and data. */
function shape(e: Envelope) {
  return { method: e.method, namespace: e.params?.namespace, ...(e.params?.node ? { node: e.params.node } : {}), data: e.params?.data };
}

/** A command's answer, its meta, ids (normalised) and error text aside. */
function reply(e: Envelope): Record<string, unknown> {
  const { meta: _, ...rest } = e as Envelope & { meta?: unknown };
  return normalize({ ...rest, ...(rest.type === 'error' ? { message: '<text>' } : {}) }) as Record<string, unknown>;
}

/** One socket per side, closed after `steps`. */
async function withSocket<T>(side: Side, threadId: string, steps: (socket: SocketClient) => Promise<T>): Promise<T> {
  const socket = await openSocket(side.url, threadId);
  try {
    return await steps(socket);
  } finally {
    socket.close();
  }
}

/**
 * The thread event protocol's WebSocket (`GET /threads/{id}/stream/events`) beside the reference server: the
 * same frames on the same graph give the same replies, and the same events in the same order. Replies and
 * events share one wire, and where a reply lands among the events is each server's own timing (the reference
 * parks a `subscription.subscribe` sent before any run until `run.start` binds one), so replies are compared by
 * id and events by their order among themselves.
 */
describe('conformance: the thread event protocol over WebSocket', () => {
  const pair = usePair('protocol_ws');

  it('subscribe, run.start, a whole run, then state.get: the same replies, events and order', async () => {
    const seen = await pair.both(async (side) =>
      withSocket(side, randomUUID(), async (socket) => {
        const subscribed = socket.command(1, 'subscription.subscribe', { channels: ['values', 'updates', 'messages', 'lifecycle'] });
        const started = await socket.command(2, 'run.start', { assistant_id: 'chat', input: say('hi') });
        const subscription = await subscribed;
        await socket.frame(terminal);
        const state = await socket.command(3, 'state.get', {});
        const events = (socket.frames as Envelope[]).filter(isEvent);
        return {
          subscription: reply(subscription),
          started: reply(started),
          events: events.filter(rootOnly).map(shape),
          seqs: events.map((e) => e.seq!),
          ids: events.map((e) => e.event_id),
          state: reply(state),
        };
      }),
    );
    expect(seen.ours.subscription).toEqual(seen.reference.subscription);
    expect(seen.ours.started).toEqual(seen.reference.started);
    // ids (run, task namespaces, messages) normalised over the whole run, so the same id stays the same placeholder
    expect(normalize(seen.ours.events)).toEqual(normalize(seen.reference.events));
    const messages = seen.ours.events.filter((e) => e.method === 'messages');
    expect(messages.length).toBeGreaterThan(0);
    for (const side of [seen.ours, seen.reference]) expect(side.events.filter((e) => e.method === 'messages' && 'node' in e)).toEqual([]);
    // the whole run is there: running, values, updates of both nodes, the reply's message, a completed root
    const methods = new Set(seen.ours.events.map((e) => e.method));
    for (const m of ['lifecycle', 'values', 'updates', 'messages']) expect(methods).toContain(m);
    expect(seen.ours.events.at(-1)).toMatchObject({ method: 'lifecycle', namespace: [], data: { event: 'completed' } });
    // each event once, in increasing seq, its event_id the seq's text (on both)
    for (const side of [seen.ours, seen.reference]) {
      expect([...side.seqs].sort((a, b) => a - b)).toEqual(side.seqs);
      expect(new Set(side.seqs).size).toBe(side.seqs.length);
      expect(side.ids).toEqual(side.seqs.map(String));
    }
    expect(seen.ours.state).toEqual(seen.reference.state);
    expect(seen.ours.state).toMatchObject({ type: 'success', id: 3 });
  });

  it('bad frames (not JSON, no id, no method) are answered invalid_argument; the socket stays open', async () => {
    const seen = await pair.both(async (side) =>
      withSocket(side, randomUUID(), async (socket) => {
        const answers: unknown[] = [];
        for (const frame of ['not json', JSON.stringify({ method: 'state.get' }), JSON.stringify({ id: 7 })]) {
          const before = socket.frames.length;
          socket.raw(frame);
          answers.push(reply(await socket.frame((f) => socket.frames.indexOf(f) >= before && f.type === 'error')));
        }
        // still open: a command after them is answered (a run.start without an assistant, which starts nothing)
        const after = reply(await socket.command(8, 'run.start', { input: say('x') }));
        return { answers, after, open: socket.ws.readyState };
      }),
    );
    const refused = { type: 'error', id: null, error: 'invalid_argument', message: '<text>' };
    expect(seen.reference.answers).toEqual([refused, refused, refused]);
    // a documented difference: a frame with a usable integer id but no string method is answered with that id
    // (the client can tell which command failed); the reference answers every bad frame with id null
    expect(seen.ours.answers).toEqual([refused, refused, { ...refused, id: 7 }]);
    expect(seen.ours.after).toEqual(seen.reference.after);
    expect(seen.ours.after).toEqual({ type: 'error', id: 8, error: 'invalid_argument', message: '<text>' });
    expect([seen.ours.open, seen.reference.open]).toEqual([1, 1]);
  });

  it('an unknown command: unknown_command once a run is bound; before one, a documented difference', async () => {
    const seen = await pair.both(async (side) =>
      withSocket(side, randomUUID(), async (socket) => {
        const before = reply(await socket.command(1, 'no.such', {}));
        await socket.command(2, 'run.start', { assistant_id: 'chat', input: say('hi') });
        const during = reply(await socket.command(3, 'no.such', {}));
        return { before, during };
      }),
    );
    expect(seen.ours.during).toEqual(seen.reference.during);
    expect(seen.ours.during).toEqual({ type: 'error', id: 3, error: 'unknown_command', message: '<text>' });
    // the reference answers any command it does not know with no_such_run while no run is bound
    expect(seen.reference.before).toEqual({ type: 'error', id: 1, error: 'no_such_run', message: '<text>' });
    expect(seen.ours.before).toEqual({ ...seen.reference.before, error: 'unknown_command' });
  });

  it('an interrupt: input.requested on the socket, input.respond over it resumes the run to the end', async () => {
    const seen = await pair.both(async (side) =>
      withSocket(side, randomUUID(), async (socket) => {
        const subscribed = socket.command(1, 'subscription.subscribe', { channels: ['lifecycle', 'input', 'values'] });
        const started = reply(await socket.command(2, 'run.start', { assistant_id: 'chat', input: { ...say('hi'), ask: true } }));
        await subscribed;
        const request = (await socket.frame((e) => e.method === 'input.requested')) as Envelope;
        await socket.frame((e) => terminal(e) && e.params.data.event === 'interrupted');
        const respond = reply(
          await socket.command(3, 'input.respond', { interrupt_id: request.params!.data.interrupt_id, response: 'yes' }),
        );
        await socket.frame((e) => terminal(e) && e.params.data.event === 'completed');
        const state = (await socket.command(4, 'state.get', { keys: ['approved'] })) as Envelope;
        const events = (socket.frames as Envelope[])
          .filter((e) => isEvent(e) && rootOnly(e))
          .map(shape)
          // an interrupt id is a hash of the task (not a UUID): its type is compared
          .map((e) => (e.method === 'input.requested' ? { ...e, data: { ...e.data, interrupt_id: typeof e.data?.interrupt_id } } : e));
        return { started, respond, events: normalize(events), approved: state.result?.values };
      }),
    );
    expect(seen.ours).toEqual(seen.reference);
    expect(seen.ours.approved).toEqual({ approved: 'yes' });
    expect(seen.ours.events).toContainEqual(expect.objectContaining({ method: 'input.requested' }));
  });

  it('subscription refusals once a run is bound: no channels, an unsupported channel, an unknown subscription', async () => {
    const seen = await pair.both(async (side) =>
      withSocket(side, randomUUID(), async (socket) => {
        await socket.command(1, 'run.start', { assistant_id: 'chat', input: say('hi') });
        return {
          empty: reply(await socket.command(2, 'subscription.subscribe', { channels: [] })),
          unsupported: reply(await socket.command(3, 'subscription.subscribe', { channels: ['nope'] })),
          unknown: reply(await socket.command(4, 'subscription.unsubscribe', { subscription_id: 'no-such' })),
        };
      }),
    );
    expect(seen.ours).toEqual(seen.reference);
    expect(seen.ours).toEqual({
      empty: { type: 'error', id: 2, error: 'invalid_argument', message: '<text>' },
      unsupported: { type: 'error', id: 3, error: 'invalid_argument', message: '<text>' },
      unknown: { type: 'error', id: 4, error: 'no_such_subscription', message: '<text>' },
    });
  });
});
