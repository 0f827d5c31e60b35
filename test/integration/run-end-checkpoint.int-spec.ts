import { randomUUID } from 'node:crypto';

import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { evaluate } from 'mathjs';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { z } from 'zod';

import { buildReactGraph } from '../../src/agents/react/graph';
import { turnInput } from '../../src/agents/react/state';
import { withRunContext } from '../../src/core/run-context';
import { CHECKPOINT_SCHEMA } from '../../src/database/checkpoint-schema';
import { type FinalCheckpoint, PendingWrites, TimedPostgresSaver } from '../../src/database/checkpoint-writer';
import { ENTITIES, RunEntity, SessionEntity } from '../../src/database/entities';
import { MIGRATIONS } from '../../src/database/migrations';
import { prepareLanggraphTables } from '../../src/database/prepare-database';
import { PgRunStore } from '../../src/runs/store/pg-run-store';
import { PgSessionStore } from '../../src/runs/store/pg-session-store';
import type { RunEnd } from '../../src/runs/store/run-store';
import { FakeChatModel } from '../support/fake-chat-model';
import { createTestDatabase, type TestDatabase } from '../support/infra';

/**
 * A run with durability `exit` writes its one checkpoint in the statement that records its end (PgRunStore.finish):
 * both or neither — an attempt that no longer holds the run (taken over, or ended already) writes no checkpoint.
 */
describe('the end of a run carries its last checkpoint', () => {
  let tdb: TestDatabase;
  let db: DataSource;
  let pool: Pool;
  let runs: PgRunStore;
  let sessions: PgSessionStore;
  let saver: TimedPostgresSaver;
  const tenant = `t-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    tdb = await createTestDatabase('run_end_checkpoint');
    db = new DataSource({ type: 'postgres', url: tdb.url, entities: ENTITIES, migrations: MIGRATIONS, poolSize: 4 });
    await db.initialize();
    await db.runMigrations();
    pool = (db.driver as PostgresDriver).master as Pool;
    await prepareLanggraphTables(pool);
    runs = new PgRunStore(db.getRepository(RunEntity), db);
    sessions = new PgSessionStore(db.getRepository(SessionEntity), db);
    saver = new TimedPostgresSaver(pool, CHECKPOINT_SCHEMA);
  });

  afterAll(async () => {
    await db.destroy();
    await tdb.drop();
  });

  const graph = () =>
    new StateGraph(MessagesAnnotation)
      .addNode('answer', () => ({ messages: [new AIMessage('hello')] }))
      .addEdge(START, 'answer')
      .addEdge('answer', END)
      .compile({ checkpointer: saver });

  /** A started run of a new session, and its graph's last checkpoint held (as GraphRunner holds it). */
  async function ranTurn(): Promise<{ run: RunEntity; thread: string; checkpoint: FinalCheckpoint }> {
    const sessionId = `s-${randomUUID()}`;
    await sessions.open(tenant, sessionId, 'echo');
    const run = await runs.createStarted(
      { id: randomUUID(), sessionId, tenantId: tenant, agent: 'echo', mode: 'sync', input: { message: 'hi' } },
      60_000,
    );
    const thread = `${tenant}:${sessionId}`;
    const pending = new PendingWrites(20, false, true);
    const context = withRunContext({ tenantId: tenant, runId: run.id, pendingWrites: pending, attempt: run.attempts });
    const configurable = { thread_id: thread, ...context };
    for await (const _ of await graph().stream({ messages: [new HumanMessage('hi')] }, { configurable, durability: 'exit' }));
    return { run, thread, checkpoint: (await pending.takeFinal())! };
  }

  const ended = (checkpoint: FinalCheckpoint): RunEnd => ({
    status: 'completed',
    result: null,
    error: null,
    trace: null,
    usage: { calls: 0, promptTokens: 0, completionTokens: 0 },
    messages: { user: 'hi', assistant: 'hello' },
    checkpoint,
  });
  const checkpoints = async (thread: string) =>
    (await pool.query(`SELECT count(*)::int AS n FROM "${CHECKPOINT_SCHEMA}".checkpoints WHERE thread_id = $1`, [thread])).rows[0].n;

  it('writes the checkpoint with the end, in one statement, and the thread reads it back', async () => {
    const { run, thread, checkpoint } = await ranTurn();
    expect(await checkpoints(thread)).toBe(0); // held until the end
    const query = jest.spyOn(pool, 'query');
    expect(await runs.finish(run, ended(checkpoint))).toBe(true);
    expect(query).toHaveBeenCalledTimes(1);
    query.mockRestore();
    expect(await checkpoints(thread)).toBe(1);
    expect((await runs.get(run.id)).status).toBe('completed');
    const state = await graph().getState({ configurable: { thread_id: thread } });
    expect(state.values.messages.map((m: { content: unknown }) => m.content)).toEqual(['hi', 'hello']);
  });

  it('an attempt that no longer holds the run writes neither its end nor its checkpoint', async () => {
    const { run, thread, checkpoint } = await ranTurn();
    // taken over: another attempt started the run
    await pool.query('UPDATE runs SET attempts = attempts + 1 WHERE id = $1', [run.id]);
    expect(await runs.finish(run, ended(checkpoint))).toBe(false);
    expect(await checkpoints(thread)).toBe(0);
    expect((await runs.get(run.id)).status).toBe('running');

    // ended already: a second end of the same attempt writes nothing either
    const other = await ranTurn();
    expect(await runs.finish(other.run, { ...ended(other.checkpoint), checkpoint: undefined })).toBe(true);
    expect(await runs.finish(other.run, ended(other.checkpoint))).toBe(false);
    expect(await checkpoints(other.thread)).toBe(0);
  });

  it("the react graph's final state is its held checkpoint's values: what the last `values` chunk was", async () => {
    const calculator = tool(async ({ expression }: { expression: string }) => String(evaluate(expression)), {
      name: 'calculator',
      description: 'Evaluates an arithmetic expression',
      schema: z.object({ expression: z.string() }),
    });
    const model = new FakeChatModel([
      new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'calculator', args: { expression: '12*7' } }] }),
      'It is 84.',
    ]);
    const graph = buildReactGraph({ model: () => model, tools: [calculator], toolCalling: () => 'native' }, saver);
    const thread = `${tenant}:s-${randomUUID()}`;
    const pending = new PendingWrites(20, false, true);
    const configurable = { thread_id: thread, ...withRunContext({ tenantId: tenant, runId: randomUUID(), pendingWrites: pending }) };
    let last: Record<string, unknown> | undefined;
    const input = turnInput({ message: 'What is 12 times 7?' }, { maxIterations: 5 });
    for await (const chunk of await graph.stream(input, { configurable, durability: 'exit', streamMode: 'values' })) last = chunk;
    const held = (await pending.takeFinal())!;
    const keys = graph.outputChannels as string[];
    expect(keys.length).toBeGreaterThan(10);
    expect(held.valuesOf(keys)).toEqual(last);
    expect((last as { response: string }).response).toBe('It is 84.');
    expect((last as { tool_calls: unknown[] }).tool_calls).toHaveLength(1);
  });
});
