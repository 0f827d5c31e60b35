import { needsToolsByRules, topicsOf } from './classifier';
import { mapToolParameters, toolSignature } from './contract-tools';

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

  it('builds the seed topic shape from a question', () => {
    expect(topicsOf('해지 조건이 뭐야?')).toEqual([{ topic_name: '해지', queries: ['해지 조건'] }]);
  });
});

describe('tool parameter mapping and the duplicate guard', () => {
  it('maps common model mistakes to the real parameters', () => {
    expect(mapToolParameters('hybrid_search', { query: '해지' })).toEqual({ topics: [{ topic_name: '해지', queries: ['해지'] }] });
    expect(mapToolParameters('get_article_by_title', { title: '비밀유지' })).toEqual({ titles: ['비밀유지'] });
    expect(mapToolParameters('get_article_by_index', { articles: [10], contract_id: 'x' })).toEqual({
      article_numbers: [10],
      exhibit_numbers: [],
    });
    expect(mapToolParameters('lookup_standard_contract', { article_numbers: 10 })).toEqual({ user_article_numbers: [10] });
  });

  it('signs a call by tool name and sorted arguments', () => {
    expect(toolSignature('get_article_by_index', { exhibit_numbers: [], article_numbers: [10] })).toBe(
      toolSignature('get_article_by_index', { article_numbers: [10], exhibit_numbers: [] }),
    );
    expect(toolSignature('get_article_by_index', { article_numbers: [10] })).not.toBe(
      toolSignature('get_article_by_index', { article_numbers: [11] }),
    );
  });
});
