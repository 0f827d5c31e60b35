import { randomUUID } from 'node:crypto';

import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { evaluate } from 'mathjs';
import { z } from 'zod';

import { buildReactGraph } from '../../src/agents/react/graph';
import { turnInput } from '../../src/agents/react/state';
import { withRunContext } from '../../src/core/run-context';
import { CHECKPOINT_SCHEMA } from '../../src/database/checkpoint-schema';
import { type FinalCheckpoint, PendingWrites } from '../../src/database/checkpoint-writer';
import { RunEntity } from '../../src/database/entities';
import type { RunEnd } from '../../src/runs/store/run-store';
import { FakeChatModel } from '../support/fake-chat-model';
import { useRunStores } from '../support/run-stores';

/**
 * A run with durability `exit` writes its one checkpoint in the statement that records its end (PgRunStore.finish):
 * both or neither — an attempt that no longer holds the run (taken over, or ended already) writes no checkpoint.
 */
describe('the end of a run carries its last checkpoint', () => {
  const stores = useRunStores('run_end_checkpoint');
  const tenant = `t-${randomUUID().slice(0, 8)}`;

  const graph = () => stores.helloGraph();

  /** A started run of a new session, and its graph's last checkpoint held (as GraphRunner holds it). */
  async function ranTurn(): Promise<{ run: RunEntity; thread: string; checkpoint: FinalCheckpoint }> {
    const sessionId = `s-${randomUUID()}`;
    await stores.sessions.open(tenant, sessionId, 'echo');
    const run = await stores.runs.createStarted(
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
    (await stores.pool.query(`SELECT count(*)::int AS n FROM "${CHECKPOINT_SCHEMA}".checkpoints WHERE thread_id = $1`, [thread])).rows[0].n;

  it('writes the checkpoint with the end, in one statement, and the thread reads it back', async () => {
    const { run, thread, checkpoint } = await ranTurn();
    expect(await checkpoints(thread)).toBe(0); // held until the end
    const query = jest.spyOn(stores.pool, 'query');
    expect(await stores.runs.finish(run, ended(checkpoint))).toBe(true);
    expect(query).toHaveBeenCalledTimes(1);
    query.mockRestore();
    expect(await checkpoints(thread)).toBe(1);
    expect((await stores.runs.get(run.id)).status).toBe('completed');
    const state = await graph().getState({ configurable: { thread_id: thread } });
    expect(state.values.messages.map((m: { content: unknown }) => m.content)).toEqual(['hi', 'hello']);
  });

  it('an attempt that no longer holds the run writes neither its end nor its checkpoint', async () => {
    const { run, thread, checkpoint } = await ranTurn();
    // taken over: another attempt started the run
    await stores.pool.query('UPDATE runs SET attempts = attempts + 1 WHERE id = $1', [run.id]);
    expect(await stores.runs.finish(run, ended(checkpoint))).toBe(false);
    expect(await checkpoints(thread)).toBe(0);
    expect((await stores.runs.get(run.id)).status).toBe('running');

    // ended already: a second end of the same attempt writes nothing either
    const other = await ranTurn();
    expect(await stores.runs.finish(other.run, { ...ended(other.checkpoint), checkpoint: undefined })).toBe(true);
    expect(await stores.runs.finish(other.run, ended(other.checkpoint))).toBe(false);
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
    const graph = buildReactGraph({ model: () => model, tools: [calculator], toolCalling: () => 'native' }, stores.saver);
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
