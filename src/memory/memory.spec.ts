import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { Annotation, END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';

import { buildSystemPrompt, createMemoryNode } from './memory.node';
import { DEFAULT_MEMORY_LIMITS, planCompaction } from './memory-policy';
import { extractiveSummary } from './summarizer';
import { addSummaryToWindow, formatSummaryForPrompt, SUMMARY_SEPARATOR } from './summary-window';

const convo = (n: number): BaseMessage[] =>
  Array.from({ length: n }, (_, i) =>
    i % 2 === 0 ? new HumanMessage({ content: `q${i}`, id: `m${i}` }) : new AIMessage({ content: `a${i}`, id: `m${i}` }),
  );

describe('memory policy', () => {
  it('does nothing up to MAX_MESSAGES and summarises the older ones beyond it', () => {
    expect(planCompaction(convo(10), DEFAULT_MEMORY_LIMITS)).toBeNull();
    const plan = planCompaction(convo(11), DEFAULT_MEMORY_LIMITS)!;
    expect(plan.toSummarise.map((m) => m.id)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5']);
    expect(plan.removals.map((r) => r.id)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5']);
  });

  it('never keeps a tool result without the AI message that called it', () => {
    const msgs = [
      ...convo(6),
      new AIMessage({ content: '', id: 'call', tool_calls: [{ id: 't1', name: 'calculator', args: {}, type: 'tool_call' }] }),
      new ToolMessage({ content: '42', tool_call_id: 't1', id: 'result' }),
      new AIMessage({ content: 'it is 42', id: 'x1' }),
      new HumanMessage({ content: 'thanks', id: 'x2' }),
      new AIMessage({ content: 'welcome', id: 'x3' }),
    ];
    // keepRecent 4 would start the tail at the ToolMessage: the boundary moves back to its AI call
    const plan = planCompaction(msgs, { maxMessages: 10, keepRecent: 4, maxSummaries: 3 })!;
    expect(plan.toSummarise.map((m) => m.id)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5']);
  });
});

describe('summary window', () => {
  it('slides after MAX_SUMMARIES and formats with [대화 기록 N]', () => {
    let s = '';
    for (const x of ['요약1', '요약2', '요약3', '요약4']) s = addSummaryToWindow(s, x, 3);
    expect(s).toBe(['요약2', '요약3', '요약4'].join(SUMMARY_SEPARATOR));
    expect(formatSummaryForPrompt(s)).toBe('[대화 기록 1]\n요약2\n\n[대화 기록 2]\n요약3\n\n[대화 기록 3]\n요약4');
    expect(buildSystemPrompt('base', s, '휴가 정책')).toMatch(
      /^base\n\n\[이전 대화 요약\]\n\[대화 기록 1\][\s\S]*\[참고 문서\]\n휴가 정책$/,
    );
  });

  it('keeps the facts in an extractive summary', () => {
    const summary = extractiveSummary([new HumanMessage('내 이름은 철수야'), new AIMessage('반가워요 철수님. 무엇을 도와드릴까요?')]);
    expect(summary).toContain('내 이름은 철수야');
    expect(summary).toContain('반가워요 철수님.');
    expect(summary).not.toContain('무엇을 도와드릴까요');
  });
});

describe('memory node in a graph', () => {
  const State = Annotation.Root({ ...MessagesAnnotation.spec, summary: Annotation<string>({ reducer: (_a, b) => b, default: () => '' }) });

  it('removes summarised messages from the checkpointed state and stores the summary', async () => {
    const model = new FakeListChatModel({ responses: ['사용자 이름은 철수, 마감은 3월 15일'] });
    const graph = new StateGraph(State)
      .addNode('memory', createMemoryNode({ model: () => model, limits: DEFAULT_MEMORY_LIMITS }))
      .addEdge(START, 'memory')
      .addEdge('memory', END)
      .compile({ checkpointer: new MemorySaver() });
    const cfg = { configurable: { thread_id: 't' } };
    const out = await graph.invoke({ messages: convo(12) }, cfg);
    expect(out.messages.map((m: BaseMessage) => m.id)).toEqual(['m7', 'm8', 'm9', 'm10', 'm11']);
    expect(out.summary).toBe('사용자 이름은 철수, 마감은 3월 15일');
    const saved = await graph.getState(cfg);
    expect(saved.values.messages).toHaveLength(5);
  });
});

describe('summaries carry facts forward', () => {
  it('gives the summariser the previous summaries, so the sliding window does not lose early facts', async () => {
    const model = new FakeListChatModel({ responses: ['새 요약'] });
    const spy = jest.spyOn(model, 'invoke');
    const node = createMemoryNode({ model: () => model, limits: DEFAULT_MEMORY_LIMITS });
    await node({ messages: convo(12), summary: '사용자 이름은 철수' }, {});
    const prompt = String((spy.mock.calls[0][0] as BaseMessage[])[1].content);
    expect(prompt).toContain('[이전 요약]\n[대화 기록 1]\n사용자 이름은 철수');
    expect(prompt).toContain('사용자: q0');
  });
});
