import { FakeListChatModel } from '@langchain/core/utils/testing';

import { needsToolsByRules, topicsOf } from './classifier';
import { collected, createRespond, missingClauses } from './nodes/respond.node';
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

describe('a clause the contract lacks', () => {
  const search = (args: Record<string, unknown>) => ({
    tool: 'hybrid_search',
    args,
    signature: 's',
    status: 'success' as const,
    summary: '',
    attempts: 1,
  });
  const disputes = {
    number: 'Article 15',
    index: 15,
    title: 'Dispute Resolution',
    text: 'the Seoul Central District Court has jurisdiction',
    contract_id: 'c1',
  };
  const state = (user_message: string, searched: Record<string, unknown>) =>
    ({
      user_message,
      contract_id: 'c1',
      tool_history: [search(searched)],
      collected_info: [{ tool: 'get_article_by_index', summary: '', articles: [disputes] }],
    }) as Partial<ContractQaStateType> as ContractQaStateType;
  const governingLaw = { topics: [{ topic_name: 'the governing law', queries: ['governing law applicable 준거법'] }] };

  it('is said, in the language of the question, once the search looked for it', () => {
    expect(missingClauses(state('Which law governs this agreement?', governingLaw), 'en')).toBe(
      'The contract has no clause on the governing law.',
    );
    expect(missingClauses(state('이 계약의 준거법은?', governingLaw), 'ko')).toBe('계약서에 준거법에 관한 조항이 없습니다.');
  });

  it('is not said when an article covers it, or when no search looked for it', () => {
    expect(
      missingClauses(state('Which court has jurisdiction over disputes?', { topics: [{ topic_name: 'disputes', queries: [] }] }), 'en'),
    ).toBe('');
    expect(missingClauses(state('Which law governs this agreement?', { topics: [{ topic_name: 'fees', queries: [] }] }), 'en')).toBe('');
  });

  it('is put to the model as something to say plainly', async () => {
    const model = new FakeListChatModel({ responses: ['There is no governing-law clause; Article 15 names the court.'] });
    const invoke = jest.spyOn(model, 'invoke');
    const respond = createRespond({ model: () => model });
    const out = await respond(state('Which law governs this agreement?', governingLaw), {});
    expect(out.final_response).toBe('There is no governing-law clause; Article 15 names the court.');
    const system = String((invoke.mock.calls[0][0] as Array<{ content: unknown }>)[0].content);
    expect(system).toMatch(/say plainly: "The contract has no clause on the governing law\."/);
  });
});
