import { readFileSync } from 'node:fs';
import path from 'node:path';

import { parseContract } from './contract-parser';
import { relevantArticles, termCoverage, topicsOfQuestion } from './contract-topics';

const fixture = (name: string) =>
  parseContract(readFileSync(path.join(__dirname, '../../../test/fixtures/contracts', name), 'utf8')).articles;
const numbers = (articles: Array<{ number: string }>) => articles.map((a) => a.number);

describe('contract topics', () => {
  const english = fixture('service-agreement-en.md');
  const korean = fixture('service-agreement.md');

  it('tells the topics of a question in English and Korean', () => {
    expect(topicsOfQuestion('Which law governs this agreement?').map((t) => t.name)).toEqual(['governing_law']);
    expect(topicsOfQuestion('이 계약의 준거법은?').map((t) => t.name)).toEqual(['governing_law']);
    expect(topicsOfQuestion('How can the customer terminate?').map((t) => t.name)).toEqual(['termination']);
    expect(topicsOfQuestion('해지 조건이 뭐야?').map((t) => t.name)).toEqual(['termination']);
    expect(topicsOfQuestion('Tell me a joke')).toEqual([]);
  });

  it('keeps only the articles about the topic out of everything a search ranked', () => {
    // a full-text search for "governing law" ranks every article with "law" in it (Article 7: "disclosed by law");
    // the contract has no governing-law clause, and the disputes article is the related one
    expect(numbers(relevantArticles('the governing law governing law applicable 준거법', english))).toEqual(['Article 15']);
    expect(numbers(relevantArticles('disputes dispute jurisdiction court 분쟁 관할', english))).toEqual(['Article 15']);
    expect(numbers(relevantArticles('fees and payment fees payment 대금 지급', english))).toEqual(['Article 5']);
    expect(numbers(relevantArticles('termination 해지', korean))).toEqual(['제10조', '제10조의2']); // 제10조의2: 해지의 효과
    expect(numbers(relevantArticles('분쟁 해결 dispute jurisdiction court 분쟁 관할', korean))).toEqual(['제15조']);
  });

  it('without a known topic, keeps the articles holding at least half of the significant terms', () => {
    const backups = english.filter((a) => termCoverage('service levels response', a) >= 0.5);
    expect(numbers(relevantArticles('service levels response', english))).toEqual(numbers(backups));
    expect(numbers(relevantArticles('service levels response', english))).toContain('Article 9');
    expect(relevantArticles('zebra giraffe', english)).toEqual([]);
  });
});
