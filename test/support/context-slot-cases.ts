import { getContextVariable, setContextVariable } from '@langchain/core/context';
import { RunnableLambda } from '@langchain/core/runnables';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';
import { Annotation, getConfig, StateGraph } from '@langchain/langgraph';

import { contextSlot } from '../../src/observability/context-slot';

/** the AsyncLocalStorage stores a promise made here carries (Node 20 puts one property per enabled storage on it) */
function storesOnAPromise(): number {
  return Object.getOwnPropertySymbols(Promise.resolve()).filter((s) => s.description === 'kResourceStore').length;
}

/**
 * The cases of src/observability/context-slot.ts, run as LangChain ships (its unit spec) and with the platform's
 * patch of LangChain's context (test/integration/context-slot.int-spec.ts): `install` patches, returning the undo.
 */
export function describeContextSlot(name: string, install?: () => () => void): void {
  describe(`a context slot (${name})`, () => {
    let undo: (() => void) | undefined;
    beforeAll(() => {
      undo = install?.();
    });
    afterAll(() => undo?.());

    it('gives the innermost run its value, undefined outside any, and keeps concurrent call trees apart', async () => {
      const slot = contextSlot<string>('test');
      expect(slot.get()).toBeUndefined();
      const seen = await Promise.all(
        ['a', 'b'].map((v) =>
          slot.run(v, async () => {
            await new Promise((r) => setTimeout(r, 5));
            return [slot.get(), slot.run(`${v}2`, () => slot.get()), slot.get()];
          }),
        ),
      );
      expect(seen).toEqual([
        ['a', 'a2', 'a'],
        ['b', 'b2', 'b'],
      ]);
      expect(slot.get()).toBeUndefined();
    });

    it('keeps two slots apart, and leaves LangChain context variables as they are', () => {
      const a = contextSlot<string>('a');
      const b = contextSlot<string>('a'); // the same name: still another slot
      setContextVariable('outer', 1);
      expect(a.run('x', () => [a.get(), b.get(), getContextVariable('outer')])).toEqual(['x', undefined, 1]);
      expect(b.run('y', () => a.run('x', () => [a.get(), b.get()]))).toEqual(['x', 'y']);
    });

    it("reaches into a runnable and a LangGraph node, and a slot opened inside a node keeps the node's config", async () => {
      const slot = contextSlot<string>('tenant');
      const lambda = RunnableLambda.from(async () => slot.get());
      expect(await slot.run('acme', () => lambda.invoke({}))).toBe('acme');

      const State = Annotation.Root({ seen: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }) });
      const graph = new StateGraph(State)
        .addNode('first', async () => {
          await new Promise((r) => setTimeout(r, 1));
          return { seen: [slot.get() ?? 'none'] };
        })
        .addNode('second', async () => {
          const inner = await slot.run('inner', async () => {
            await Promise.resolve();
            return [slot.get() ?? 'none', String(getConfig().configurable?.thread_id)];
          });
          return { seen: [...inner, slot.get() ?? 'none'] };
        })
        .addEdge('__start__', 'first')
        .addEdge('first', 'second')
        .compile();
      const out = await slot.run('acme', () => graph.invoke({}, { configurable: { thread_id: 't1' } }));
      expect(out.seen).toEqual(['acme', 'inner', 't1', 'acme']);
      expect((await graph.invoke({}, { configurable: { thread_id: 't2' } })).seen).toEqual(['none', 'inner', 't2', 'none']);
    });

    it("enables no AsyncLocalStorage of its own: a promise carries the same stores as with LangChain's alone", async () => {
      // LangChain's storage is enabled by its first run
      await RunnableLambda.from(async () => 1).invoke({});
      AsyncLocalStorageProviderSingleton.getInstance().run({}, () => undefined);
      const before = storesOnAPromise();
      const slot = contextSlot<string>('count');
      const during = slot.run('v', () => storesOnAPromise());
      expect(during).toBe(before);
      expect(storesOnAPromise()).toBe(before);
    });
  });
}
