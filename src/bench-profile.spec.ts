import { type CpuProfile, moduleOf, selfTimes } from '../bench/profile-summary';

/** a profile of four 1 ms samples from t = 1000 µs: idle, a LangGraph frame, the service's built code, its sources */
function profile(): CpuProfile {
  const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });
  return {
    startTime: 1000,
    nodes: [
      { id: 1, callFrame: frame('(root)', ''), children: [2, 3, 4, 5] },
      { id: 2, callFrame: frame('(idle)', '') },
      { id: 3, callFrame: frame('tick', 'file:///app/node_modules/@langchain/langgraph/dist/pregel/loop.cjs') },
      { id: 4, callFrame: frame('run', 'file:///app/dist/orchestrator/graph-runner.service.js') },
      { id: 5, callFrame: frame('llm', 'file:///app/src/agents/react/nodes/llm.node.ts') },
    ],
    samples: [2, 3, 4, 5],
    timeDeltas: [1000, 1000, 1000, 1000],
  };
}

describe("the bench's profile summaries", () => {
  it('names a frame by its package, or by the folder of the service it is in, built or run from its sources', () => {
    const [, , graph, built, sources] = profile().nodes.map((n) => moduleOf(n.callFrame));
    expect([graph, built, sources]).toEqual(['@langchain/langgraph', 'service: orchestrator', 'service: agents']);
  });

  it('counts only the samples inside a window (µs from the profile start), idle left out', () => {
    const all = selfTimes(profile(), 0);
    expect(all.totalUs).toBe(3000);
    // samples land at 1000, 2000, 3000 and 4000 µs: the window [1500, 3000] holds the LangGraph and the built frame
    const window = selfTimes(profile(), 1500, 3000);
    expect(window.totalUs).toBe(2000);
    expect([...window.byModule.keys()].sort()).toEqual(['@langchain/langgraph', 'service: orchestrator']);
  });
});
