import { readFileSync } from 'fs';
import { join } from 'path';

import { extractArticleRefs } from './article-matching';
import { ContractParseError, parseContract } from './contract-parser';

const fixture = (name: string): string => readFileSync(join(__dirname, '../../../test/fixtures/contracts', name), 'utf8');

describe('parseContract: English contracts', () => {
  const c = parseContract(fixture('service-agreement-en.md'));

  it('reads `Article N (Title)` and `Article N – Title` headings into articles 1–15', () => {
    expect(c.articles.map((a) => a.number)).toEqual(Array.from({ length: 15 }, (_, i) => `Article ${i + 1}`));
    expect(c.articles[0]).toMatchObject({ index: 1, sub_index: null, title: 'Purpose' });
    expect(c.articles[9]).toMatchObject({ index: 10, title: 'Termination' });
    expect(c.preamble).toMatch(/^# Software Maintenance Services Agreement/);
    expect(c.closing).toMatch(/^IN WITNESS WHEREOF/);
  });

  it('splits an article into its dotted clauses (10.1 … 10.4), keeping (a)–(c) items inside theirs', () => {
    const termination = c.articles[9];
    expect(termination.clauses).toHaveLength(4);
    expect(termination.clauses[0]).toMatch(/^10\.1 Either party may terminate .* 30 days/);
    expect(termination.clauses[2]).toContain('(c) discloses Confidential Information in breach of Article 7.');
    expect(termination.text.startsWith('Article 10 – Termination\n')).toBe(true);
    expect(c.articles[1].clauses).toHaveLength(1); // a lead sentence with a 1./2./3. list is one clause
  });

  it('reads schedules as exhibits with their own numbers', () => {
    expect(c.exhibits.map((e) => [e.number, e.index, e.title])).toEqual([
      ['Schedule 1', 1, 'Scope of Services'],
      ['Schedule 2', 2, 'Payment Schedule'],
    ]);
    expect(c.exhibits[1].content).toContain('KRW 10,000,000 each');
  });

  it('reads bare numbered headings (`1. Definitions`) when the numbers run on, and keeps list items inside', () => {
    const doc = [
      'SERVICES AGREEMENT',
      '1. Definitions',
      'The following terms apply:',
      '1. Affiliate means any company controlled by a party.',
      '2. Payment',
      'Fees are due within 30 days.',
      '3. TERMINATION',
      'Either party may terminate on 60 days notice.',
      'EXHIBIT A',
      'Price list',
      '1. Support',
      'ANNEX II – Service Levels',
      'Uptime 99.9%.',
    ].join('\n');
    const parsed = parseContract(doc);
    expect(parsed.articles.map((a) => [a.number, a.title])).toEqual([
      ['Section 1', 'Definitions'],
      ['Section 2', 'Payment'],
      ['Section 3', 'TERMINATION'],
    ]);
    expect(parsed.articles[0].text).toContain('1. Affiliate means');
    expect(parsed.exhibits.map((e) => [e.number, e.index, e.title])).toEqual([
      ['Exhibit A', 1, 'Price list'],
      ['Annex II', 2, 'Service Levels'],
    ]);
    expect(parsed.exhibits[0].content).toBe('1. Support');
  });

  it('takes `Section 3 shall survive …` and `3.2 …` as text, not headings', () => {
    const parsed = parseContract('Section 1. Scope\nSection 3 shall survive termination.\n3.2 The fees are fixed.\nSECTION 2: FEES\nNone.');
    expect(parsed.articles.map((a) => a.number)).toEqual(['Section 1', 'Section 2']);
    expect(parsed.articles[0].text).toContain('Section 3 shall survive termination.');
  });

  it('keeps a Korean contract Korean: an English line inside it is no heading', () => {
    const parsed = parseContract('제1조 (목적)\n본문\nArticle 2 (Scope)\n제2조 (범위)\n본문');
    expect(parsed.articles.map((a) => a.number)).toEqual(['제1조', '제2조']);
    expect(parsed.articles[0].text).toContain('Article 2 (Scope)');
  });

  it('names both heading styles when a document has none', () => {
    const error = (() => {
      try {
        parseContract('Just a letter.\nKind regards.');
      } catch (e) {
        return e as ContractParseError;
      }
    })();
    expect(error).toBeInstanceOf(ContractParseError);
    expect(error?.reason).toMatch(/'제1조 \(목적\)'.*'Article 1 \(Purpose\)'/);
  });
});

describe('extractArticleRefs: English references', () => {
  it.each([
    ['What does Article 5 say?', [5], []],
    ['Compare Section 3.2 and 7', [3, 7], []],
    ['Summarise Clauses 2-4', [2, 3, 4], []],
    ['What is in Schedule 2 and Exhibit A?', [], [2, 1]],
    ['Annex II and § 9', [9], [2]],
    ['Can we schedule a call about the exhibit?', [], []],
  ])('%s', (question, articles, exhibits) => {
    expect(extractArticleRefs(question)).toMatchObject({ articles, exhibits });
  });
});
