import { randomUUID } from 'node:crypto';

import { Annotation, END, MemorySaver, START, StateGraph } from '@langchain/langgraph';

import { nativeTaskIds, nativeUuid5 } from './native-task-ids';

const exportsOf = require('@langchain/langgraph-checkpoint') as { uuid5: (name: string, namespace: string) => string };
const original = exportsOf.uuid5;

describe('nativeTaskIds (canary for @langchain/langgraph 1.7.3, @langchain/langgraph-checkpoint 1.2.2)', () => {
  beforeAll(() => expect(nativeTaskIds()).toBe(true));

  it("gives the library's ids: task-id names (English, Korean, emoji, empty) in checkpoint ids", () => {
    const names = [
      JSON.stringify(['', 3, 'LlmNode', '__pregel_pull', 'LlmNode']),
      JSON.stringify(['parent:1f0…', 12, '도구', '__pregel_push', ['__pregel_pull', '계획']]),
      '__interrupt__:2',
      '🦜🔗 ✓',
      '',
      'x'.repeat(5000),
    ];
    for (const namespace of [
      randomUUID(),
      '1f0cd8a2-3b4c-6d5e-8f90-a1b2c3d4e5f6',
      '00000000-0000-0000-0000-000000000000',
      'FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF',
    ]) {
      for (const name of names) expect(exportsOf.uuid5(name, namespace)).toBe(original(name, namespace));
    }
  });

  it('hands a namespace that is not a UUID to the original', () => {
    for (const namespace of ['not-a-uuid', '1f0cd8a23b4c6d5e8f90a1b2c3d4e5f6']) {
      let expected: unknown;
      let got: unknown;
      try {
        expected = original('name', namespace);
      } catch (err) {
        expected = (err as Error).message;
      }
      try {
        got = exportsOf.uuid5('name', namespace);
      } catch (err) {
        got = (err as Error).message;
      }
      expect(got).toEqual(expected);
    }
  });

  it('is what a graph run names its tasks with (the library reads the export at each call)', async () => {
    const installed = exportsOf.uuid5;
    const named = new Map<string, [string, string]>(); // id → (name, namespace)
    exportsOf.uuid5 = (name, namespace) => {
      const id = installed(name, namespace);
      named.set(id, [name, namespace]);
      return id;
    };
    try {
      const State = Annotation.Root({ n: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }) });
      const graph = new StateGraph(State)
        .addNode('one', () => ({ n: 1 }))
        .addNode('두번째', () => ({ n: 2 }))
        .addEdge(START, 'one')
        .addEdge('one', '두번째')
        .addEdge('두번째', END)
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: 't' } };
      expect(await graph.invoke({ n: 0 }, config)).toEqual({ n: 3 });
      const taskIds: string[] = [];
      for await (const s of graph.getStateHistory(config)) taskIds.push(...s.tasks.map((t) => t.id));
      expect(taskIds.length).toBeGreaterThanOrEqual(2);
      for (const id of taskIds) {
        expect(named.has(id)).toBe(true);
        const [name, namespace] = named.get(id)!;
        expect(original(name, namespace)).toBe(id);
      }
    } finally {
      exportsOf.uuid5 = installed;
    }
  });

  it('computes RFC 4122 version 5 (the standard DNS-namespace example)', () => {
    expect(nativeUuid5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    expect(nativeUuid5('a', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe(original('a', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'));
  });
});
