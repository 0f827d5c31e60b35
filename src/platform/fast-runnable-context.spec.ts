import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { getContextVariable, setContextVariable } from '@langchain/core/context';
import { RunnableLambda } from '@langchain/core/runnables';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';
import { Annotation, Command, END, getConfig, interrupt, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import { isRunTree, RunTree } from 'langsmith/run_trees';

import { fastRunnableContext } from './fast-runnable-context';

const LC_CHILD_KEY = Symbol.for('lc:child_config');
const CONTEXT_VARIABLES_KEY = Symbol.for('lc:context_variables');
const store = () => AsyncLocalStorageProviderSingleton.getInstance().getStore() as object | undefined;
/** a store the original path made: a RunTree of its own (the fast path's inherits from one) */
const ownRunTree = (s: object | undefined) => s !== undefined && Object.hasOwn(s, 'id');

describe('fastRunnableContext', () => {
  const original = AsyncLocalStorageProviderSingleton.runWithConfig;
  afterAll(() => (AsyncLocalStorageProviderSingleton.runWithConfig = original));

  describe('canary: the internals it relies on', () => {
    const provider = AsyncLocalStorageProviderSingleton;
    type Stored = RunTree & Record<symbol, unknown> & { extra?: Record<symbol, unknown> };
    const runWithConfig = (config: object, callback: () => unknown, avoid?: boolean) => original.call(provider, config, callback, avoid);

    it('runWithConfig(config, callback, avoidCreatingRootRunTree) stores a langsmith RunTree with the config under lc:child_config', () => {
      expect(original).toHaveLength(3);
      const config = { metadata: { run: 'c' } };
      const s = runWithConfig(config, store) as Stored;
      expect(s).toBeInstanceOf(RunTree);
      expect(s.tracingEnabled).toBe(false);
      expect(s.extra?.[LC_CHILD_KEY]).toBe(config);
      // what a carrier gets its own of, not to share the template's: a RunTree pushes its children and events there
      expect(Object.hasOwn(s, 'child_runs') && Object.hasOwn(s, 'events')).toBe(true);
      const child = s.createChild({ name: 'child' });
      s.addEvent('seen');
      expect(s.child_runs).toEqual([child]);
      expect(s.events).toHaveLength(1);
      expect(runWithConfig(config, () => provider.getRunnableConfig())).toBe(config);
      expect(runWithConfig(config, store, true)).toBeUndefined(); // avoidCreatingRootRunTree: no RunTree
    });

    it('context variables live under lc:context_variables, carried into a nested call; setContextVariable copies a RunTree-like store', () => {
      const nested = runWithConfig({}, () => {
        setContextVariable('tenant', 'acme');
        return runWithConfig({}, store);
      }) as Stored;
      expect(nested[CONTEXT_VARIABLES_KEY]).toEqual({ tenant: 'acme' });
      // a carrier is made with Object.create from a RunTree and given its own `extra`: still a RunTree to
      // isRunTree, so setContextVariable copies it (its own properties) with the config
      const template = runWithConfig({}, store) as RunTree;
      const carrier = Object.create(template) as RunTree;
      carrier.extra = { ...template.extra, [LC_CHILD_KEY]: { metadata: { run: 't' } } };
      expect(isRunTree(carrier)).toBe(true);
      expect((new RunTree(carrier) as Stored).extra?.[LC_CHILD_KEY]).toEqual({ metadata: { run: 't' } });
    });
  });

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
