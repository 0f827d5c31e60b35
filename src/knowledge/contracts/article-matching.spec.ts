import { readFileSync } from 'fs';
import { join } from 'path';

import { DEFAULT_MATCH_THRESHOLD, diceSimilarity, extractArticleRefs, matchArticles, normalizeTitle } from './article-matching';
import { parseContract } from './contract-parser';

const fixture = (name: string) => parseContract(readFileSync(join(__dirname, '../../../test/fixtures/contracts', name), 'utf8'));
const user = fixture('service-agreement.md');
const standard = fixture('standard-service-contract.md');
const lease = fixture('lease-agreement.txt');

describe('similarity helpers', () => {
  it('normalises titles by dropping spaces and punctuation', () => {
    expect(normalizeTitle(' 계약의 해제·해지 ')).toBe('계약의해제해지');
    expect(normalizeTitle('【권리·의무의 양도 금지】')).toBe('권리의무의양도금지');
  });

  it('computes bigram Dice similarity', () => {
    expect(diceSimilarity('계약의 해지', '계약의 해제·해지')).toBeCloseTo(0.8, 5);
    expect(diceSimilarity('비밀유지', '비밀 유지')).toBe(1);
    expect(diceSimilarity('불가항력', '손해배상')).toBe(0);
    expect(diceSimilarity('', '목적')).toBe(0);
    expect(diceSimilarity('갑', '갑')).toBe(1);
  });
});

describe('matchArticles', () => {
  const matches = matchArticles(user.articles, standard.articles);
  const byUser = new Map(matches.map((m) => [m.user.number, m]));
  const target = (n: string) => byUser.get(n)?.standard?.number ?? null;

  it('returns one result per user article, in order', () => {
    expect(matches.map((m) => m.user.number)).toEqual(user.articles.map((a) => a.number));
  });

  it('matches user 제10조 (계약의 해지) to the standard 제14조 (계약의 해제·해지)', () => {
    const m = byUser.get('제10조');
    expect(m?.standard).toMatchObject({ number: '제14조', title: '계약의 해제·해지' });
    expect(m?.score).toBeGreaterThanOrEqual(DEFAULT_MATCH_THRESHOLD);
    expect(m?.title_score).toBeGreaterThan(0.5);
  });

  it('matches differently numbered articles by title', () => {
    expect(target('제1조')).toBe('제1조');
    expect(target('제5조')).toBe('제4조'); // 계약금액 및 지급방법 → 계약금액
    expect(target('제7조')).toBe('제13조'); // 비밀유지 → 비밀유지 의무
    expect(target('제10조의2')).toBe('제15조'); // 해지의 효과 → 해제·해지의 효과
    expect(target('제11조')).toBe('제10조'); // 하도급 제한 → 하도급의 제한
    expect(target('제12조')).toBe('제16조'); // 손해배상 → 손해배상책임
    expect(target('제14조')).toBe('제11조');
    expect(target('제15조')).toBe('제18조'); // 분쟁해결 → 분쟁의 해결
  });

  it('reports no match below the threshold, with the best score still given', () => {
    const m = byUser.get('제9조'); // 장애 대응 및 서비스 수준: nothing similar in the standard
    expect(m?.standard).toBeNull();
    expect(m?.score).toBeLessThan(DEFAULT_MATCH_THRESHOLD);
    expect(target('제6조')).toBeNull(); // 검수 vs 검사 및 인수 share no bigram
  });

  it('matches the lease 제7조 (계약의 해지) against the standard too', () => {
    const [m] = matchArticles(
      lease.articles.filter((a) => a.number === '제7조'),
      standard.articles,
    );
    expect(m.standard?.number).toBe('제14조');
  });

  it('honours the threshold option and validates options', () => {
    const strict = matchArticles(user.articles, standard.articles, { threshold: 0.9 });
    expect(
      strict
        .filter((m) => m.standard)
        .map((m) => m.user.number)
        .sort(),
    ).toEqual(['제13조', '제14조']);
    const loose = matchArticles(user.articles, standard.articles, { threshold: 0 });
    expect(loose.every((m) => m.standard !== null)).toBe(true);
    expect(() => matchArticles([], [], { threshold: 1.5 })).toThrow(RangeError);
    expect(() => matchArticles([], [], { titleWeight: -1 })).toThrow(RangeError);
  });

  it('lets the title outweigh clause text, which is only a weaker signal', () => {
    const s14 = standard.articles.find((a) => a.number === '제14조');
    const s16 = standard.articles.find((a) => a.number === '제16조');
    const disguised = { number: '제3조', title: '비밀유지', clauses: s14?.clauses ?? [] };
    expect(matchArticles([disguised], standard.articles)[0].standard?.number).toBe('제13조');
    const untitled = { number: '제9조', title: '', clauses: s16?.clauses ?? [] };
    expect(matchArticles([untitled], standard.articles)[0].standard).toBeNull();
    const byClause = matchArticles([untitled], standard.articles, { titleWeight: 0 })[0];
    expect(byClause.standard?.number).toBe('제16조');
    expect(byClause.clause_score).toBe(1);
  });

  it('discounts generic title words so 계약의 해지 prefers 해지 over 계약의 변경', () => {
    const std = [
      { number: '제1조', title: '계약의 변경' },
      { number: '제2조', title: '해지' },
    ];
    expect(diceSimilarity('계약의 해지', '계약의 변경')).toBeGreaterThan(diceSimilarity('계약의 해지', '해지'));
    expect(matchArticles([{ number: '제10조', title: '계약의 해지' }], std)[0].standard?.number).toBe('제2조');
  });

  it('works on plain {number, title} objects and breaks ties toward the earlier standard article', () => {
    const std = [
      { number: '제1조', title: '목적' },
      { number: '제2조', title: '목 적' },
      { number: '제3조', title: '손해배상' },
    ];
    const [a, b] = matchArticles(
      [
        { number: '제9조', title: '목적' },
        { number: '제8조', title: '손해 배상' },
      ],
      std,
    );
    expect(a.standard?.number).toBe('제1조');
    expect(a.score).toBe(0.8);
    expect(b.standard?.number).toBe('제3조');
  });
});

describe('extractArticleRefs', () => {
  it.each<[string, number[], number[]]>([
    ['제5조랑 제7조 알려줘', [5, 7], []],
    ['별지 2 내용', [], [2]],
    ['10조', [10], []],
    ['10조 내용이 뭐야?', [10], []],
    ['제 12 조 손해배상 한도는?', [12], []],
    ['제7조, 제5조, 다시 제7조', [7, 5], []],
    ['제5조부터 제7조까지 요약해줘', [5, 6, 7], []],
    ['5~7조', [5, 6, 7], []],
    ['제10조 제2항과 별지 1', [10], [1]],
    ['별지 1, 2 보여줘', [], [1, 2]],
    ['별지 제3호 서식', [], [3]],
    ['별지1과 2, 그리고 제3조', [3], [1, 2]],
    ['해지 조건이 뭐야?', [], []],
    ['계약금액이 1조 원을 넘나요?', [], []],
    ['3조건 중 하나', [], []],
    ['제3자에게 제공해도 되나', [], []],
  ])('%j → articles %j, exhibits %j', (q, articles, exhibits) => {
    const refs = extractArticleRefs(q);
    expect(refs.articles).toEqual(articles);
    expect(refs.exhibits).toEqual(exhibits);
  });

  it('reports sub-articles and counts their parent article', () => {
    expect(extractArticleRefs('제10조의2랑 3조의 2 비교')).toEqual({
      articles: [10, 3],
      exhibits: [],
      sub_articles: [
        { index: 10, sub_index: 2 },
        { index: 3, sub_index: 2 },
      ],
    });
  });

  it('reads an implausibly long range as its two ends', () => {
    expect(extractArticleRefs('제1조~제300조').articles).toEqual([1, 300]);
  });
});
