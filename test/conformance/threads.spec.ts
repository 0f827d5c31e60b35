import type { ThreadState } from '@langchain/langgraph-sdk';

import { normalize, outcome, type Side, usePair } from './support/pair';

/** Keys that differ by deployment, not by behaviour: the server's own run metadata. */
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
  'created_at',
  'created_by',
  'assistant_id',
];

const say = (content: string, id: string) => ({ messages: [{ type: 'human', content, id }] });

/** What a client reads of a history: each checkpoint's step, source, next nodes and values. */
function historyShape(history: ThreadState[]) {
  return history.map((s) => ({ step: s.metadata?.step, source: s.metadata?.source, next: s.next, values: s.values }));
}

/** Two runs on a new `chat` thread, the second with run metadata. */
async function twoRuns(side: Side): Promise<string> {
  const thread = await side.client.threads.create({ graphId: 'chat' });
  await side.client.runs.wait(thread.thread_id, 'chat', { input: say('one', 'm1') });
  await side.client.runs.wait(thread.thread_id, 'chat', { input: say('two', 'm2'), metadata: { batch: 'second' } });
  return thread.thread_id;
}

/** Thread state and history of LangGraph API threads, on both servers. */
describe('conformance: threads', () => {
  const pair = usePair('threads');

  it('history filters on run metadata; a copied thread has every checkpoint', async () => {
    const seen = await pair.both(async (side) => {
      const threadId = await twoRuns(side);
      const all = await side.client.threads.getHistory(threadId, { limit: 100 });
      const second = await side.client.threads.getHistory(threadId, { metadata: { batch: 'second' } });
      const copy = await side.client.threads.copy(threadId);
      const copied = await side.client.threads.getHistory(copy.thread_id, { limit: 100 });
      return { all: historyShape(all), second: historyShape(second), copied: historyShape(copied) };
    });
    expect(normalize(seen.ours, PLATFORM_KEYS)).toEqual(normalize(seen.reference, PLATFORM_KEYS));
  });

  it('a state update is refused while a run is pending, and applied once it is cancelled', async () => {
    const seen = await pair.both(async (side) => {
      const thread = await side.client.threads.create({ graphId: 'chat' });
      const run = await side.client.runs.create(thread.thread_id, 'chat', { input: say('later', 'm1'), afterSeconds: 5 });
      const update = { values: { messages: [{ type: 'ai', content: 'sneaked in', id: 'a1' }] }, asNode: 'reply' };
      const during = await outcome(side.client.threads.updateState(thread.thread_id, update));
      await side.client.runs.cancel(thread.thread_id, run.run_id);
      await side.client.runs.join(thread.thread_id, run.run_id);
      const after = await outcome(side.client.threads.updateState(thread.thread_id, update));
      const state = await side.client.threads.getState(thread.thread_id);
      return {
        during: 'error' in during ? during.error.slice(0, 8) : 'applied',
        after: 'error' in after ? after.error : 'applied',
        values: state.values,
      };
    });
    expect(normalize(seen.ours, PLATFORM_KEYS)).toEqual(normalize(seen.reference, PLATFORM_KEYS));
  });

  it('a thread created with supersteps has one checkpoint per superstep', async () => {
    const seen = await pair.both(async (side) => {
      const thread = await side.client.threads.create({
        graphId: 'chat',
        supersteps: [
          { updates: [{ asNode: '__input__', values: say('hi', 'm1') }] },
          { updates: [{ asNode: 'review', values: {} }] },
          { updates: [{ asNode: 'reply', values: { messages: [{ type: 'ai', content: 'hello', id: 'a1' }] } }] },
        ],
      });
      return historyShape(await side.client.threads.getHistory(thread.thread_id));
    });
    expect(normalize(seen.ours, PLATFORM_KEYS)).toEqual(normalize(seen.reference, PLATFORM_KEYS));
  });
});
