import { normalize, outcome, type Side, usePair } from './support/pair';

/** Keys that differ by deployment, not by behaviour: the server's own run metadata and config. */
const PLATFORM_KEYS = [
  'langgraph_version',
  'langgraph_plan',
  'langgraph_host',
  'langgraph_api_url',
  'user-agent',
  'run_attempt',
  'session_id',
  'tenant_id',
  'ls_integration',
  'run_name',
  'recursion_limit',
  'created_at',
];

const HEX_ID = /^[0-9a-f]{32}$/;

/** `normalize`, and the ids LangGraph derives from checkpoint ids (an interrupt's) as `<hex>`. */
function comparable(value: unknown): unknown {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return HEX_ID.test(v) ? '<hex>' : v;
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(normalize(value, PLATFORM_KEYS));
}

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

/** The run's events as the SDK streams them on a new thread of `graphId`; the thread's id with them. */
async function streamOnNewThread(side: Side, graphId: string, payload: Record<string, unknown>) {
  const thread = await side.client.threads.create({ graphId });
  const events = await collect(side.client.runs.stream(thread.thread_id, graphId, payload) as AsyncIterable<StreamEvent>);
  return { threadId: thread.thread_id, events };
}

/** A debug checkpoint event as a client reads it: its step and checkpoint references. */
function debugCheckpoints(events: StreamEvent[]) {
  return events
    .filter((e) => e.event === 'debug' && e.data?.type === 'checkpoint')
    .map((e) => ({
      step: e.data.payload.metadata?.step,
      checkpoint: e.data.payload.checkpoint,
      parent_checkpoint: e.data.payload.parent_checkpoint,
      config_keys: Object.keys(e.data.payload.config?.configurable ?? {})
        .filter((k) => !PLATFORM_KEYS.includes(k))
        .sort(),
    }));
}

/** The checkpoints of a thread's history, oldest first, as `debugCheckpoints` shows them. */
async function historyCheckpoints(side: Side, threadId: string, limit: number) {
  const history = (await side.client.threads.getHistory(threadId, { limit })).reverse();
  return history.map((s) => ({ step: s.metadata?.step, checkpoint: s.checkpoint, parent_checkpoint: s.parent_checkpoint }));
}

/** Runs, streams and thread state of LangGraph API runs, event for event, on both servers. */
describe('conformance: runs', () => {
  const pair = usePair('runs');

  it('stream mode messages: each message completes once it is in the state (the input too), in order', async () => {
    const seen = await pair.both(async (side) => {
      const { events } = await streamOnNewThread(side, 'chat', {
        input: { messages: [{ type: 'human', content: 'hello', id: 'msg-1' }] },
        streamMode: ['messages', 'values'],
      });
      return events.map((e) => ({ id: e.id, event: e.event, data: e.event === 'messages/metadata' ? Object.keys(e.data) : e.data }));
    });
    expect(comparable(seen.ours)).toEqual(comparable(seen.reference));
  });

  it('stream mode debug: checkpoints name themselves and their parent as the history does, configs without internals', async () => {
    const seen = await pair.both(async (side) => {
      const { threadId, events } = await streamOnNewThread(side, 'chat', {
        input: { messages: [{ type: 'human', content: 'hello', id: 'msg-1' }] },
        streamMode: 'debug',
      });
      const streamed = debugCheckpoints(events);
      const history = await historyCheckpoints(side, threadId, streamed.length);
      return { streamed, history, types: events.map((e) => `${e.event}:${e.data?.type ?? ''}`) };
    });
    expect(seen.ours.streamed.map(({ config_keys: _, ...c }) => c)).toEqual(seen.ours.history);
    expect(comparable(seen.ours)).toEqual(comparable(seen.reference));
  });

  it('an interrupt inside a subgraph streams, shows in the state, and resumes with a command', async () => {
    const seen = await pair.both(async (side) => {
      const first = await streamOnNewThread(side, 'nested', { input: { topic: 'rain' }, streamMode: ['values', 'updates'] });
      const state = await side.client.threads.getState(first.threadId);
      const inner = await side.client.threads.getState(first.threadId, undefined, { subgraphs: true });
      const innerTasks = inner.tasks.map((t) => ({ name: t.name, next: t.state?.next, values: t.state?.values, tasks: t.state?.tasks }));
      const resumed = await collect(
        side.client.runs.stream(first.threadId, 'nested', {
          command: { resume: 'Oslo' },
          streamMode: ['values', 'updates'],
        }) as AsyncIterable<StreamEvent>,
      );
      const after = await side.client.threads.getState(first.threadId);
      return { first: first.events, state: { next: state.next, tasks: state.tasks }, innerTasks, resumed, after: after.values };
    });
    expect(comparable(seen.ours)).toEqual(comparable(seen.reference));
  });

  it('an interrupted subgraph resumes after a state update, with input null, from the checkpoint', async () => {
    const seen = await pair.both(async (side) => {
      const first = await streamOnNewThread(side, 'nested', { input: { topic: 'snow' } });
      const state = await side.client.threads.getState(first.threadId);
      const checkpoint = state.tasks[0]?.checkpoint ?? undefined; // the subgraph's
      await side.client.threads.updateState(first.threadId, { values: { city: 'Bergen' }, checkpoint, asNode: 'ask' });
      const resumed = await collect(
        side.client.runs.stream(first.threadId, 'nested', { input: null, streamMode: 'values' }) as AsyncIterable<StreamEvent>,
      );
      const after = await side.client.threads.getState(first.threadId);
      return { resumed, after: after.values, next: after.next };
    });
    expect(comparable(seen.ours)).toEqual(comparable(seen.reference));
  });

  it('a run without input continues a thread stopped by interrupt_before', async () => {
    const seen = await pair.both(async (side) => {
      const first = await streamOnNewThread(side, 'chat', {
        input: { messages: [{ type: 'human', content: 'wait', id: 'msg-1' }] },
        interruptBefore: ['reply'],
      });
      const next = (await side.client.threads.getState(first.threadId)).next;
      const run = await outcome(side.client.runs.wait(first.threadId, 'chat', {}));
      return { next, run };
    });
    expect(comparable(seen.ours)).toEqual(comparable(seen.reference));
  });

  // a run still pending: LangGraph Server deletes it at once (one that has started, the in-memory reference lets fail
  // and keeps; this service deletes it with its checkpoints, as LangGraph Platform documents rollback)
  it('multitask rollback: the pending first run is gone, the second one ran alone', async () => {
    const seen = await pair.both(async (side) => {
      const thread = await side.client.threads.create({ graphId: 'slow' });
      const slow = { messages: [{ type: 'human', content: 'first', id: 'm1' }], delay_ms: 3000 };
      const run1 = await side.client.runs.create(thread.thread_id, 'slow', { input: slow, afterSeconds: 2 });
      const run2 = await side.client.runs.create(thread.thread_id, 'slow', {
        input: { messages: [{ type: 'human', content: 'second', id: 'm2' }] },
        multitaskStrategy: 'rollback',
      });
      await side.client.runs.join(thread.thread_id, run2.run_id);
      const first = await outcome(side.client.runs.get(thread.thread_id, run1.run_id));
      const runs = await side.client.runs.list(thread.thread_id);
      const state = await side.client.threads.getState(thread.thread_id);
      return {
        first: 'error' in first ? first.error.slice(0, 8) : first.value.status,
        runs: runs.map((r) => r.status),
        values: state.values,
      };
    });
    expect(comparable(seen.ours)).toEqual(comparable(seen.reference));
  });
  it('cancelling a run that has already ended succeeds and leaves it as it ended', async () => {
    const seen = await pair.both(async (side) => {
      const thread = await side.client.threads.create({ graphId: 'slow' });
      const run = await side.client.runs.create(thread.thread_id, 'slow', { input: { messages: [{ type: 'human', content: 'hi' }] } });
      await side.client.runs.join(thread.thread_id, run.run_id);
      const cancel = await outcome(side.client.runs.cancel(thread.thread_id, run.run_id));
      const after = await side.client.runs.get(thread.thread_id, run.run_id);
      return { cancel: 'error' in cancel ? cancel.error.slice(0, 8) : 'ok', status: after.status };
    });
    expect(seen.ours).toEqual({ cancel: 'ok', status: 'success' });
    expect(seen.ours).toEqual(seen.reference);
  });
});
