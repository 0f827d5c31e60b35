import { randomUUID } from 'node:crypto';

import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { Annotation, Command, END, interrupt, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { Pool } from 'pg';

import { type RunContext, runContextOf, withRunContext } from '../../src/core/run-context';
import { RunSuperseded } from '../../src/core/run-fence';
import { PendingWrites, TimedPostgresSaver } from '../../src/database/checkpoint-writer';
import { createTestDatabase, type TestDatabase } from '../support/infra';
import { waitFor } from '../support/test-app';

/** a graph run's context (core/run-context.ts) holding `parts` */
const runCtx = (parts: Partial<RunContext>) => withRunContext({ tenantId: 'default', runId: 'test-run', ...parts });

/**
 * A run's pending writes ride along with its next checkpoint (PendingWrites): half the statements, the same rows
 * as the official saver, and nothing left behind once the run has flushed (interrupts, errors, a lone write).
 */
const State = Annotation.Root({ ...MessagesAnnotation.spec, count: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }) });
type S = typeof State.State;

/** agent → tools → agent → END, as a react turn with one tool call */
function react(checkpointer: PostgresSaver) {
  const call = { id: 'call_1', name: 'lookup', args: { q: 'x' } };
  return new StateGraph(State)
    .addNode('agent', (s: S) => ({ messages: [new AIMessage(s.count ? { content: 'done' } : { content: '', tool_calls: [call] })] }))
    .addNode('tools', () => ({ messages: [new ToolMessage({ content: 'found', tool_call_id: 'call_1' })], count: 1 }))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (s: S) => (s.count ? END : 'tools'))
    .addEdge('tools', 'agent')
    .compile({ checkpointer });
}

/** a subgraph (its own namespace) that asks for approval, inside a parent with a step before it */
function nested(checkpointer: PostgresSaver) {
  const sub = new StateGraph(State)
    .addNode('draft', () => ({ messages: [new AIMessage('draft')], count: 1 }))
    .addNode('ask', () => ({ messages: [new AIMessage(`approved: ${String(interrupt('approve?'))}`)], count: 1 }))
    .addEdge(START, 'draft')
    .addEdge('draft', 'ask')
    .addEdge('ask', END)
    .compile();
  return new StateGraph(State)
    .addNode('prep', () => ({ count: 1 }))
    .addNode('sub', sub)
    .addEdge(START, 'prep')
    .addEdge('prep', 'sub')
    .addEdge('sub', END)
    .compile({ checkpointer });
}

function failing(checkpointer: PostgresSaver) {
  return new StateGraph(State)
    .addNode('answer', () => ({ messages: [new AIMessage('hello')] }))
    .addNode('boom', () => {
      throw new Error('boom');
    })
    .addEdge(START, 'answer')
    .addEdge('answer', 'boom')
    .addEdge('boom', END)
    .compile({ checkpointer });
}

/** input → model (a 150 ms call) → response */
function slow(checkpointer: PostgresSaver) {
  return new StateGraph(State)
    .addNode('input', () => ({ count: 1 }))
    .addNode('model', async () => {
      await new Promise((r) => setTimeout(r, 150));
      return { messages: [new AIMessage('done')] };
    })
    .addNode('response', () => ({ count: 1 }))
    .addEdge(START, 'input')
    .addEdge('input', 'model')
    .addEdge('model', 'response')
    .addEdge('response', END)
    .compile({ checkpointer });
}

type Graph = ReturnType<typeof react> | ReturnType<typeof nested> | ReturnType<typeof failing> | ReturnType<typeof slow>;

describe('PendingWrites', () => {
  let db: TestDatabase;
  let pool: Pool;
  let official: PostgresSaver;
  let timed: TimedPostgresSaver;

  beforeAll(async () => {
    db = await createTestDatabase('pending_writes');
    pool = new Pool({ connectionString: db.url, max: 4 });
    pool.on('error', () => undefined); // the database is dropped WITH (FORCE) after pool.end()
    official = new PostgresSaver(pool, undefined, { schema: 'langgraph' });
    await official.setup();
    timed = new TimedPostgresSaver(pool, 'langgraph');
  });

  afterEach(() => jest.restoreAllMocks());

  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  /** Streams a run as the orchestrator does: the buffer under its key, flushed once the stream has ended. */
  async function run(
    graph: Graph,
    input: unknown,
    thread: string,
    pending?: PendingWrites,
    durability: 'async' | 'sync' | 'exit' = 'async',
    context: Partial<RunContext> = {},
  ) {
    const parts = { ...(pending ? { pendingWrites: pending } : {}), ...context };
    const configurable = { thread_id: thread, ...(Object.keys(parts).length > 0 ? runCtx(parts) : {}) };
    const stream: AsyncIterable<unknown> = await graph.stream(input as never, { configurable, durability });
    try {
      for await (const _ of stream);
    } finally {
      await pending?.flush();
    }
  }

  /** Checkpoint statements sent through the pool: puts and writes on their own. */
  function countStatements() {
    const query = jest.spyOn(pool, 'query');
    const texts = () => query.mock.calls.map(([sql]) => String(sql));
    const isPut = (sql: unknown) => /^WITH w AS[\s\S]*INSERT INTO "langgraph".checkpoints /.test(String(sql));
    return {
      puts: () => texts().filter(isPut).length,
      writes: () => texts().filter((sql) => /^WITH w AS[\s\S]*SELECT 1$/.test(sql)).length,
      /** write rows each put carried (its last parameters are the rows' columns) */
      carried: () => query.mock.calls.filter(([sql]) => isPut(sql)).map(([, p]) => (p as unknown[][]).at(-1)!.length),
    };
  }

  /** A thread's rows without the ids that differ between runs; each write with the step of its checkpoint. */
  async function rowsOf(thread: string) {
    const q = (sql: string) => pool.query(sql, [thread]).then((r) => r.rows);
    return {
      checkpoints: await q(
        `SELECT checkpoint_ns <> '' AS nested, metadata->>'step' AS step, metadata->>'source' AS source, parent_checkpoint_id IS NULL AS root
         FROM langgraph.checkpoints WHERE thread_id = $1 ORDER BY 1, 2`,
      ),
      blobs: await q(
        `SELECT checkpoint_ns <> '' AS nested, channel, version, type, length(blob) AS bytes
         FROM langgraph.checkpoint_blobs WHERE thread_id = $1 ORDER BY 1, 2, 3`,
      ),
      writes: await q(
        `SELECT w.checkpoint_ns <> '' AS nested, c.metadata->>'step' AS step, w.channel, w.idx, w.type, length(w.blob) AS bytes
         FROM langgraph.checkpoint_writes w
         LEFT JOIN langgraph.checkpoints c USING (thread_id, checkpoint_ns, checkpoint_id)
         WHERE w.thread_id = $1 ORDER BY 1, 2, 3, 4, 6`,
      ),
    };
  }

  it.each(['async', 'sync'] as const)(
    'a react turn (%s) sends its writes with the next checkpoint: fewer statements, the same rows as the official saver',
    async (durability) => {
      const input = () => ({ messages: [new HumanMessage('hi')] }); // a fresh message: the run gives it an id
      await run(react(official), input(), `react-official-${durability}`, undefined, durability);

      const alone = countStatements();
      await run(react(timed), input(), `react-alone-${durability}`, undefined, durability);
      expect(alone.writes()).toBeGreaterThanOrEqual(3); // agent, tools, agent (and the input's)
      jest.restoreAllMocks();

      const held = countStatements();
      await run(react(timed), input(), `react-held-${durability}`, new PendingWrites(), durability);
      expect(held.writes()).toBe(0);
      expect(held.puts()).toBe(alone.puts());
      const rows = await rowsOf(`react-official-${durability}`);
      // the loop runs ahead of its chained puts: a put carries every write held by then, whatever its checkpoint
      expect(held.carried().reduce((a, b) => a + b)).toBe(rows.writes.length);
      expect(rows.writes.map((w: { channel: string }) => w.channel)).toContain('messages');
      expect(await rowsOf(`react-held-${durability}`)).toEqual(rows);
      expect(await rowsOf(`react-alone-${durability}`)).toEqual(rows);
      const state = await react(timed).getState({ configurable: { thread_id: `react-held-${durability}` } });
      expect(state.values.messages.map((m: { content: unknown }) => m.content)).toEqual(['hi', '', 'found', 'done']);
    },
  );

  it.each(['async', 'sync'] as const)(
    "writes a run's checkpoints only while its attempt holds the run (%s): after a renewal, the same rows; lost, none",
    async (durability) => {
      const input = () => ({ messages: [new HumanMessage('hi')] });
      await run(react(official), input(), `fence-official-${durability}`, undefined, durability);
      // a worker that stalled: every put and write waits for a renewal first, and the rows are the same
      let asked = 0;
      const renewing = () => (asked++, new Promise<void>((r) => setTimeout(r, 5)));
      await run(react(timed), input(), `fence-renewed-${durability}`, new PendingWrites(), durability, { fence: renewing });
      expect(asked).toBeGreaterThanOrEqual(2);
      expect(await rowsOf(`fence-renewed-${durability}`)).toEqual(await rowsOf(`fence-official-${durability}`));
      // another attempt has the run: this one writes nothing at all
      const superseded = () => Promise.reject(new Error('superseded'));
      const lost = run(react(timed), input(), `fence-lost-${durability}`, new PendingWrites(), durability, { fence: superseded });
      await expect(lost).rejects.toThrow('superseded');
      expect(await rowsOf(`fence-lost-${durability}`)).toEqual({ checkpoints: [], blobs: [], writes: [] });
    },
  );

  it.each(['async', 'sync'] as const)(
    "a leased run's attempt is a predicate of its checkpoint statements (%s): no renewal asked, the same rows; taken over, nothing written",
    async (durability) => {
      // the fence reads the run's row (id, attempts, status): the columns of the service's `runs` it needs
      await pool.query(`CREATE TABLE IF NOT EXISTS runs (id uuid PRIMARY KEY, attempts int NOT NULL, status text NOT NULL)`);
      const runId = randomUUID();
      await pool.query(`INSERT INTO runs (id, attempts, status) VALUES ($1, 1, 'running')`, [runId]);
      const input = () => ({ messages: [new HumanMessage('hi')] });
      await run(react(official), input(), `attempt-official-${durability}`, undefined, durability);
      let asked = 0;
      const fence = () => (asked++, Promise.reject(new Error('the fence was asked')));
      await run(react(timed), input(), `attempt-held-${durability}`, new PendingWrites(), durability, { runId, attempt: 1, fence });
      expect(asked).toBe(0);
      expect(await rowsOf(`attempt-held-${durability}`)).toEqual(await rowsOf(`attempt-official-${durability}`));
      // another attempt has taken the run over: this one's statements write nothing, and it stops
      await pool.query(`UPDATE runs SET attempts = 2 WHERE id = $1`, [runId]);
      const stale = run(react(timed), input(), `attempt-stale-${durability}`, new PendingWrites(), durability, {
        runId,
        attempt: 1,
        fence,
      });
      await expect(stale).rejects.toBeInstanceOf(RunSuperseded);
      expect(await rowsOf(`attempt-stale-${durability}`)).toEqual({ checkpoints: [], blobs: [], writes: [] });
      // the run handed back (queued again by the reconciler): its attempt writes nothing either
      await pool.query(`UPDATE runs SET attempts = 1, status = 'queued' WHERE id = $1`, [runId]);
      const handedBack = run(react(timed), input(), `attempt-queued-${durability}`, undefined, durability, { runId, attempt: 1 });
      await expect(handedBack).rejects.toBeInstanceOf(RunSuperseded);
      expect(await rowsOf(`attempt-queued-${durability}`)).toEqual({ checkpoints: [], blobs: [], writes: [] });
    },
  );

  it('an async run holding its checkpoints (holdPuts) sends what it puts within the window in one statement, the same rows', async () => {
    const input = () => ({ messages: [new HumanMessage('hi')] });
    await run(react(official), input(), 'react-official-puts');

    const alone = countStatements();
    await run(react(timed), input(), 'react-alone-puts', new PendingWrites());
    const statements = alone.puts() + alone.writes();
    expect(statements).toBeGreaterThanOrEqual(4); // input, agent, tools, agent
    jest.restoreAllMocks();

    const held = countStatements();
    await run(react(timed), input(), 'react-held-puts', new PendingWrites(60_000, true));
    expect(held.puts() + held.writes()).toBe(1); // a turn without waits: all of it at the flush
    expect(await rowsOf('react-held-puts')).toEqual(await rowsOf('react-official-puts'));
    jest.restoreAllMocks();

    // a step that waits (a model call) splits the turn: the steps before it go out once the window has passed
    const slowGraph = slow(timed);
    const windowed = countStatements();
    await run(slowGraph, input(), 'slow-held-puts', new PendingWrites(20, true));
    expect(windowed.puts()).toBe(2); // (input, its step) · (model, response, the end)
    const state = await slowGraph.getState({ configurable: { thread_id: 'slow-held-puts' } });
    expect(state.values.count).toBe(2);
    expect(state.values.messages.map((m: { content: unknown }) => m.content)).toEqual(['hi', 'done']);
  });

  it('holdFinal (durability exit): the last checkpoint waits for takeFinal, then only a statement whose guard has a row writes it, the same rows as the official saver', async () => {
    const input = () => ({ messages: [new HumanMessage('hi')] });
    await run(react(official), input(), 'final-official', undefined, 'exit');

    const pending = new PendingWrites(20, false, true);
    const statements = countStatements();
    const configurable = { thread_id: 'final-held', ...runCtx({ pendingWrites: pending }) };
    for await (const _ of await react(timed).stream(input(), { configurable, durability: 'exit' }));
    await new Promise((r) => setTimeout(r, 80)); // past the window: a final checkpoint still waits
    expect(statements.puts() + statements.writes()).toBe(0);
    const empty = { checkpoints: [], blobs: [], writes: [] };
    expect(await rowsOf('final-held')).toEqual(empty);

    const final = (await pending.takeFinal())!;
    expect(final).toBeDefined();
    expect(await pending.takeFinal()).toBeUndefined(); // taken once
    // the run store's end of a run: its CTEs after the statement's own, guarded by the row that ends the run
    const ending = (ended: boolean) =>
      pool.query(`WITH ended AS (SELECT 1 WHERE $1::boolean), ${final.ctes(2, 'ended')} SELECT count(*)::int AS n FROM ended`, [
        ended,
        ...final.params,
      ]);
    await ending(false); // the run had ended already, or another attempt holds it: nothing written
    expect(await rowsOf('final-held')).toEqual(empty);
    await ending(true);
    expect(await rowsOf('final-held')).toEqual(await rowsOf('final-official'));
    const state = await react(timed).getState({ configurable: { thread_id: 'final-held' } });
    expect(state.values.messages.map((m: { content: unknown }) => m.content)).toEqual(['hi', '', 'found', 'done']);
  });

  it('holdFinal: a read through the run writes the held checkpoint first; flush writes it on its own', async () => {
    const pending = new PendingWrites(20, false, true);
    const graph = react(timed);
    const configurable = { thread_id: 'final-read', ...runCtx({ pendingWrites: pending }) };
    for await (const _ of await graph.stream({ messages: [new HumanMessage('hi')] }, { configurable, durability: 'exit' }));
    const read = await graph.getState({ configurable });
    expect(read.values.count).toBe(1);
    expect(await pending.takeFinal()).toBeUndefined(); // written by the read

    const flushed = new PendingWrites(20, false, true);
    const other = { thread_id: 'final-flush', ...runCtx({ pendingWrites: flushed }) };
    for await (const _ of await graph.stream({ messages: [new HumanMessage('hi')] }, { configurable: other, durability: 'exit' }));
    await flushed.flush();
    expect((await rowsOf('final-flush')).checkpoints).toHaveLength(1);
  });

  it('holdPuts: a read through the run writes what is held first; a held checkpoint that fails surfaces at the flush', async () => {
    const pending = new PendingWrites(60_000, true);
    const config = { configurable: { thread_id: 'read-held', checkpoint_ns: '', ...runCtx({ pendingWrites: pending }) } };
    await expect(timed.put(config, emptyCheckpoint('1'), meta, {})).resolves.toEqual({
      configurable: { thread_id: 'read-held', checkpoint_ns: '', checkpoint_id: '1' },
    });
    expect(await timed.getTuple({ configurable: { thread_id: 'read-held', checkpoint_ns: '' } })).toBeUndefined(); // not yet written
    expect((await timed.getTuple(config))?.checkpoint.id).toBe('1');

    const failing = new PendingWrites(60_000, true);
    const bad = { configurable: { thread_id: null as unknown as string, checkpoint_ns: '', ...runCtx({ pendingWrites: failing }) } };
    await timed.put(bad, emptyCheckpoint('2'), meta, {}); // resolves: the run does not wait for it
    await expect(failing.flush()).rejects.toThrow(/null value/);
    await expect(failing.flush()).resolves.toBeUndefined();
  });

  it.each([false, true])(
    'reaches puts and writes in a subgraph (holdPuts %s): nested writes and an interrupt stored as the official saver does',
    async (holdPuts) => {
      const configs: RunnableConfig[] = [];
      const put = timed.put.bind(timed);
      const putWrites = timed.putWrites.bind(timed);
      jest.spyOn(timed, 'put').mockImplementation((config, ...rest) => (configs.push(config), put(config, ...rest)));
      jest.spyOn(timed, 'putWrites').mockImplementation((config, ...rest) => (configs.push(config), putWrites(config, ...rest)));
      const first = new PendingWrites(60_000, holdPuts); // only the flush writes what no put took
      await run(nested(timed), { messages: [new HumanMessage('hi')] }, `nested-held-${holdPuts}`, first);
      await run(nested(official), { messages: [new HumanMessage('hi')] }, `nested-official-${holdPuts}`);

      expect(configs.some((c) => c.configurable?.checkpoint_ns)).toBe(true);
      expect(configs.every((c) => runContextOf(c)?.pendingWrites === first)).toBe(true);
      const paused = await nested(timed).getState({ configurable: { thread_id: `nested-held-${holdPuts}` } });
      expect(paused.next).toEqual(['sub']);
      expect(paused.tasks[0].interrupts.map((i) => i.value)).toEqual(['approve?']);

      await run(nested(timed), new Command({ resume: 'yes' }), `nested-held-${holdPuts}`, new PendingWrites(60_000, holdPuts));
      await run(nested(official), new Command({ resume: 'yes' }), `nested-official-${holdPuts}`);
      const rows = await rowsOf(`nested-official-${holdPuts}`);
      expect(rows.writes.some((w: { nested: boolean; channel: string }) => w.nested && w.channel === '__interrupt__')).toBe(true);
      expect(await rowsOf(`nested-held-${holdPuts}`)).toEqual(rows);
      const done = await nested(timed).getState({ configurable: { thread_id: `nested-held-${holdPuts}` } });
      expect(done.values.messages.map((m: { content: unknown }) => m.content)).toEqual(['hi', 'draft', 'approved: yes']);
    },
  );

  it("a node's error is stored once the run has flushed, as the official saver stores it", async () => {
    const pending = new PendingWrites(60_000);
    await expect(run(failing(timed), { messages: [new HumanMessage('hi')] }, 'failing-held', pending)).rejects.toThrow('boom');
    await expect(run(failing(official), { messages: [new HumanMessage('hi')] }, 'failing-official')).rejects.toThrow('boom');
    const tuple = await timed.getTuple({ configurable: { thread_id: 'failing-held' } });
    expect(tuple?.pendingWrites?.map(([, channel]) => channel)).toContain('__error__');
    expect(await rowsOf('failing-held')).toEqual(await rowsOf('failing-official'));
  });

  it('writes what no put takes on flush, or on its own once the window has passed', async () => {
    const count = (thread: string) =>
      pool
        .query(`SELECT count(*)::int AS n FROM langgraph.checkpoint_writes WHERE thread_id = $1`, [thread])
        .then((r) => r.rows[0].n as number);
    const write = (thread: string, pending: PendingWrites) =>
      timed.putWrites(
        { configurable: { thread_id: thread, checkpoint_ns: '', checkpoint_id: '1', ...runCtx({ pendingWrites: pending }) } },
        [['messages', 'held']],
        'task-1',
      );

    const flushed = new PendingWrites(60_000);
    await write('flushed', flushed);
    expect(await count('flushed')).toBe(0);
    await flushed.flush();
    expect(await count('flushed')).toBe(1);

    const windowed = new PendingWrites(20);
    await write('windowed', windowed);
    expect(await count('windowed')).toBe(0);
    await waitFor(async () => ((await count('windowed')) === 1 ? true : undefined), 5_000, 5);
  });

  it('one statement takes two writes of one key (the later overwrite wins) and a failed write surfaces', async () => {
    const pending = new PendingWrites(60_000);
    const config = { configurable: { thread_id: 'twice', checkpoint_ns: '', checkpoint_id: '1', ...runCtx({ pendingWrites: pending }) } };
    await timed.putWrites(config, [['__error__', { message: 'first' }]], 'task-1');
    await timed.putWrites(config, [['__error__', { message: 'second' }]], 'task-1');
    await timed.put(
      { configurable: { thread_id: 'twice', checkpoint_ns: '', ...runCtx({ pendingWrites: pending }) } },
      emptyCheckpoint('1'),
      meta,
      {},
    );
    const tuple = await timed.getTuple({ configurable: { thread_id: 'twice', checkpoint_ns: '' } });
    expect(tuple?.pendingWrites).toEqual([['task-1', '__error__', { message: 'second' }]]);

    // a row the table refuses (no thread): the put carrying it rejects; written on its own, the flush rethrows
    const bad = { configurable: { checkpoint_ns: '', checkpoint_id: '1', ...runCtx({ pendingWrites: pending }) } };
    await timed.putWrites(bad, [['messages', 'x']], 'task-2');
    await expect(
      timed.put(
        { configurable: { thread_id: 'twice', checkpoint_ns: '', ...runCtx({ pendingWrites: pending }) } },
        emptyCheckpoint('2'),
        meta,
        {},
      ),
    ).rejects.toThrow(/null value/);
    const soon = new PendingWrites(1);
    const query = jest.spyOn(pool, 'query');
    await timed.putWrites({ configurable: { ...bad.configurable, ...runCtx({ pendingWrites: soon }) } }, [['messages', 'x']], 'task-2');
    await waitFor(async () => (query.mock.calls.length > 0 ? true : undefined), 5_000, 5);
    await expect(soon.flush()).rejects.toThrow(/null value/);
    await expect(soon.flush()).resolves.toBeUndefined();
  });
});

const meta = { source: 'input' as const, step: -1, parents: {} };

function emptyCheckpoint(id: string) {
  return { v: 4, id, ts: new Date().toISOString(), channel_values: {}, channel_versions: {}, versions_seen: {} };
}
