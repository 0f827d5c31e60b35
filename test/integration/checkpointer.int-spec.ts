import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { Annotation, Command, END, interrupt, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { Pool } from 'pg';

import { type RunContext, withRunContext } from '../../src/core/run-context';
import { OpeningRead, TimedPostgresSaver } from '../../src/database/checkpoint-writer';
import { createTestDatabase, type TestDatabase } from '../support/infra';

/** a graph run's context (core/run-context.ts) holding `parts` */
const runCtx = (parts: Partial<RunContext>) => withRunContext({ tenantId: 'default', runId: 'test-run', ...parts });

/**
 * The one-statement checkpointer writes what the official PostgresSaver writes: the same graph run on one thread
 * with each leaves the same rows (checkpoints, blobs, pending writes), and each reads the other's checkpoints.
 */
const State = Annotation.Root({ ...MessagesAnnotation.spec, count: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }) });

function graph(checkpointer: PostgresSaver) {
  return new StateGraph(State)
    .addNode('answer', () => ({ messages: [new AIMessage('hello')], count: 1 }))
    .addNode('ask', () => ({ messages: [new AIMessage(`approved: ${String(interrupt('approve?'))}`)], count: 1 }))
    .addEdge(START, 'answer')
    .addEdge('answer', 'ask')
    .addEdge('ask', END)
    .compile({ checkpointer });
}

describe('TimedPostgresSaver', () => {
  let db: TestDatabase;
  let pool: Pool;
  let official: PostgresSaver;
  let timed: TimedPostgresSaver;

  beforeAll(async () => {
    db = await createTestDatabase('checkpointer');
    pool = new Pool({ connectionString: db.url, max: 4 });
    // the database is dropped WITH (FORCE) after pool.end(), which can reach a connection still closing
    pool.on('error', () => undefined);
    official = new PostgresSaver(pool, undefined, { schema: 'langgraph' });
    await official.setup();
    timed = new TimedPostgresSaver(pool, 'langgraph');
  });

  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  async function runOn(saver: PostgresSaver, thread: string) {
    const g = graph(saver);
    const config = { configurable: { thread_id: thread }, durability: 'sync' as const };
    await g.invoke({ messages: [new HumanMessage('hi')] }, config);
    await g.invoke(new Command({ resume: 'yes' }), config);
    return g.getState({ configurable: { thread_id: thread } });
  }

  /** A thread's rows without ids that differ between runs (checkpoint ids, task ids are time-based). */
  async function rowsOf(thread: string) {
    const q = (sql: string) => pool.query(sql, [thread]).then((r) => r.rows);
    return {
      checkpoints: (
        await q(
          `SELECT metadata->>'step' AS step, metadata->>'source' AS source FROM langgraph.checkpoints WHERE thread_id = $1 ORDER BY 1`,
        )
      ).length,
      blobs: await q(
        `SELECT channel, version, type, length(blob) AS bytes FROM langgraph.checkpoint_blobs WHERE thread_id = $1 ORDER BY channel, version`,
      ),
      writes: await q(
        `SELECT channel, idx, type, length(blob) AS bytes FROM langgraph.checkpoint_writes WHERE thread_id = $1 ORDER BY channel, idx, bytes`,
      ),
    };
  }

  it('writes the same rows as the official saver and reads back the same state', async () => {
    const a = await runOn(official, 'official-thread');
    const b = await runOn(timed, 'timed-thread');
    expect(b.values.count).toBe(2);
    expect(b.values.messages.map((m: { content: unknown }) => m.content)).toEqual(['hi', 'hello', 'approved: yes']);
    expect(a.values.messages.map((m: { content: unknown }) => m.content)).toEqual(['hi', 'hello', 'approved: yes']);
    expect(b.next).toEqual(a.next);
    const official_ = await rowsOf('official-thread');
    const timed_ = await rowsOf('timed-thread');
    expect(timed_.blobs.length).toBeGreaterThan(0);
    expect(timed_.writes.some((w: { channel: string }) => w.channel === '__interrupt__')).toBe(true);
    expect(timed_).toEqual(official_);
  });

  it("each reads the other's checkpoints, history included", async () => {
    const fromOfficial = await official.getTuple({ configurable: { thread_id: 'timed-thread' } });
    const fromTimed = await timed.getTuple({ configurable: { thread_id: 'official-thread' } });
    expect(fromOfficial?.checkpoint.channel_values.count).toBe(2);
    expect(fromTimed?.checkpoint.channel_values.count).toBe(2);
    const history = [];
    for await (const t of official.list({ configurable: { thread_id: 'timed-thread' } })) history.push(t);
    expect(history.length).toBeGreaterThan(2);
  });

  it("an OpeningRead answers the graph's opening read once, without a query; later reads query", async () => {
    const g = graph(timed);
    const queries = jest.spyOn(pool, 'query');
    // a thread created by its run: known absent
    await g.invoke(
      { messages: [new HumanMessage('hi')] },
      { configurable: { thread_id: 'fresh-thread', ...runCtx({ openingRead: new OpeningRead(undefined) }) } },
    );
    const reads = () => queries.mock.calls.filter(([sql]) => /^\s*select/i.test(String(sql))).length;
    expect(reads()).toBe(0);
    // an existing thread: the tuple read before the run is what the graph starts from
    const opening = new OpeningRead(await timed.getTuple({ configurable: { thread_id: 'fresh-thread', checkpoint_ns: '' } }));
    queries.mockClear();
    const config = { configurable: { thread_id: 'fresh-thread', ...runCtx({ openingRead: opening }) } };
    const next = await g.invoke(new Command({ resume: 'yes' }), config);
    expect(reads()).toBe(0);
    expect(next.messages.map((m: { content: unknown }) => m.content)).toEqual(['hi', 'hello', 'approved: yes']);
    // claimed: a second read with the same OpeningRead goes to the database
    expect((await timed.getTuple(config))?.checkpoint.id).toBeDefined();
    expect(reads()).toBe(1);
    queries.mockRestore();
  });
});
