import { mapToolParameters, toolSignature } from './contract-tools';

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
