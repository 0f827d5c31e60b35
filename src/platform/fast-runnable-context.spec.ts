import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { getContextVariable, setContextVariable } from '@langchain/core/context';
import { RunnableLambda } from '@langchain/core/runnables';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';
import { Annotation, Command, END, getConfig, interrupt, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import { isRunTree } from 'langsmith/run_trees';

import { fastRunnableContext } from './fast-runnable-context';

const store = () => AsyncLocalStorageProviderSingleton.getInstance().getStore() as object | undefined;
/** a store the original path made: a RunTree of its own (the fast path's inherits from one) */
const ownRunTree = (s: object | undefined) => s !== undefined && Object.hasOwn(s, 'id');

describe('fastRunnableContext', () => {
  const original = AsyncLocalStorageProviderSingleton.runWithConfig;
  afterAll(() => (AsyncLocalStorageProviderSingleton.runWithConfig = original));

  it('is not installed while LangSmith tracing is on', () => {
    process.env.LANGSMITH_TRACING = 'true';
    try {
      expect(fastRunnableContext()).toBe(false);
      expect(AsyncLocalStorageProviderSingleton.runWithConfig).toBe(original);
    } finally {
      delete process.env.LANGSMITH_TRACING;
    }
  });

  it("hands a runnable its config, without a RunTree of the call's own, and context variables to its children", async () => {
    const inner = RunnableLambda.from(async () => ({
      config: AsyncLocalStorageProviderSingleton.getRunnableConfig()?.metadata,
      own: ownRunTree(store()),
      isRunTree: isRunTree(store()),
      tenant: getContextVariable('tenant'),
    }));
    const outer = RunnableLambda.from(async (_: unknown, config) => {
      setContextVariable('tenant', 'acme');
      return inner.invoke(null, config);
    });
    const before = await outer.invoke(null, { metadata: { run: 'a' } });
    expect(before).toEqual({ config: { run: 'a' }, own: true, isRunTree: true, tenant: 'acme' });

    expect(fastRunnableContext()).toBe(true);
    const after = await outer.invoke(null, { metadata: { run: 'b' } });
    expect(after).toEqual({ config: { run: 'b' }, own: false, isRunTree: true, tenant: 'acme' });
  });

  it('keeps the original path for a call with callbacks: its handlers see the run', async () => {
    const starts: string[] = [];
    class Seen extends BaseCallbackHandler {
      name = 'seen';
      handleChainStart(
        _chain: unknown,
        _inputs: unknown,
        _runId: string,
        _parent?: string,
        _tags?: string[],
        _meta?: unknown,
        _type?: string,
        name?: string,
      ) {
        starts.push(name ?? '');
      }
    }
    const step = RunnableLambda.from(async () => ownRunTree(store())).withConfig({ runName: 'step' });
    expect(await step.invoke(null, { callbacks: [new Seen()] })).toBe(true);
    expect(starts).toContain('step');
  });

  it('LangGraph nodes read their config and interrupt and resume as before', async () => {
    const State = Annotation.Root({ answer: Annotation<string> });
    const graph = new StateGraph(State)
      .addNode('ask', () => ({ answer: `${String(getConfig().configurable?.thread_id)}: ${String(interrupt('approve?'))}` }))
      .addEdge(START, 'ask')
      .addEdge('ask', END)
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: 't-1' } };
    await graph.invoke({ answer: '' }, config);
    const paused = await graph.getState(config);
    expect(paused.tasks[0].interrupts.map((i) => i.value)).toEqual(['approve?']);
    expect((await graph.invoke(new Command({ resume: 'yes' }), config)).answer).toBe('t-1: yes');
  });
});
