import { needsToolsByRules, topicsOf } from './classifier';
import { collected } from './nodes/respond.node';
import type { ContractQaStateType } from './state';

describe('LightweightClassifier', () => {
  it.each([
    ['안녕하세요', false],
    ['감사합니다!', false],
    ['제5조 알려줘', true],
    ['별지 2 내용이 뭐야', true],
    ['해지 조건이 뭐야?', true],
    ['손해배상 한도는?', true],
  ])('%s → needs tools %s', (q, needs) => {
    expect(needsToolsByRules(q)?.needs_tools).toBe(needs);
  });

  it('leaves unclear questions to the model', () => {
    expect(needsToolsByRules('이 계약에서 을이 조심할 부분은?')).toBeNull();
  });

  it('builds the seed topic shape from a question: a known topic by the words of its clauses, else the terms', () => {
    expect(topicsOf('해지 조건이 뭐야?')).toEqual([{ topic_name: 'termination', queries: ['termination 해지', '해지 조건'] }]);
    expect(topicsOf('Which law governs this agreement?').map((t) => t.topic_name)).toEqual(['the governing law', 'disputes']);
    expect(topicsOf('을이 조심할 부분은?')).toEqual([{ topic_name: '을이', queries: ['을이 조심할 부분'] }]);
  });

  it('sends a governing-law question to the tools in either language', () => {
    expect(needsToolsByRules('이 계약의 준거법은?')?.needs_tools).toBe(true);
    expect(needsToolsByRules('Which law governs this agreement?')?.needs_tools).toBe(true);
  });
});

describe('respond context', () => {
  const base = { contract_id: 'c1', collected_info: [] } as Partial<ContractQaStateType> as ContractQaStateType;
  it('keeps search hits whose article was not read, in the context and the sources', () => {
    const state = {
      ...base,
      collected_info: [
        {
          tool: 'hybrid_search',
          summary: '2개 조 검색됨',
          hits: [
            { number: '제10조', index: 10, title: '계약의 해지', snippet: '30일 전 서면 통지' },
            { number: '제3조', index: 3, title: '계약기간', snippet: '2025년 1월 1일부터' },
          ],
        },
        {
          tool: 'get_article_by_index',
          summary: '',
          articles: [{ number: '제3조', index: 3, title: '계약기간', text: '전문', contract_id: 'c1' }],
        },
      ],
    } as ContractQaStateType;
    const { sources, context } = collected(state, 'ko');
    expect(sources.map((s) => s.ref)).toEqual(['제3조', '제10조']);
    expect(context).toMatch(/\[제3조 계약기간\]\n전문/);
    expect(context).toMatch(/\[제10조 계약의 해지\] \(검색 결과 발췌\)\n30일 전 서면 통지/);
    expect(context).not.toMatch(/2025년 1월 1일부터/);
  });
});
