import { readFileSync } from 'fs';
import { join } from 'path';

import { generateLargeContract } from '../../../test/fixtures/contracts/generate-large-contract';
import { DomainException } from '../../core/errors';
import { ContractParseError, parseContract } from './contract-parser';
import type { Article, ParsedContract } from './contract-types';

const fixture = (name: string): string => readFileSync(join(__dirname, '../../../test/fixtures/contracts', name), 'utf8');
const article = (c: ParsedContract, number: string): Article => {
  const found = c.articles.find((a) => a.number === number);
  if (!found) throw new Error(`${number} not parsed`);
  return found;
};
const parseError = (text: string): ContractParseError => {
  try {
    parseContract(text);
  } catch (e) {
    if (e instanceof ContractParseError) return e;
    throw e;
  }
  throw new Error('expected a ContractParseError');
};

describe('parseContract: service-agreement.md', () => {
  const c = parseContract(fixture('service-agreement.md'));

  it('finds 16 articles (제1조–제15조 plus 제10조의2) in document order', () => {
    expect(c.articles.map((a) => a.number)).toEqual([
      '제1조',
      '제2조',
      '제3조',
      '제4조',
      '제5조',
      '제6조',
      '제7조',
      '제8조',
      '제9조',
      '제10조',
      '제10조의2',
      '제11조',
      '제12조',
      '제13조',
      '제14조',
      '제15조',
    ]);
    expect(article(c, '제5조').title).toBe('계약금액 및 지급방법');
    expect(article(c, '제7조').title).toBe('비밀유지');
    expect(article(c, '제15조').title).toBe('분쟁해결');
  });

  it('splits 제10조 (계약의 해지) into its four clauses, keeping items and a wrapped reference inside', () => {
    const a = article(c, '제10조');
    expect(a).toMatchObject({ index: 10, sub_index: null, title: '계약의 해지' });
    expect(a.clauses).toHaveLength(4);
    expect(a.clauses[0]).toMatch(/^① 각 당사자는 상대방에게 30일 전까지 서면으로 통지/);
    expect(a.clauses[1]).toContain('14일 이내에 이를 시정하지 아니하면');
    expect(a.clauses[2]).toContain('3. 제7조를 위반하여 비밀정보를 누설한 경우');
    expect(a.clauses[3]).toBe(
      '④ 이 조에 따른 해지는 해지 전에 이미 생긴 권리와 의무 및\n제12조(손해배상)에 따른 손해배상 청구에 영향을 미치지 아니한다.',
    );
    expect(a.text.startsWith('제10조 (계약의 해지)\n')).toBe(true);
    expect(a.text).not.toContain('해지의 효과');
  });

  it('parses the sub-article 제10조의2 (해지의 효과)', () => {
    const a = article(c, '제10조의2');
    expect(a).toMatchObject({ index: 10, sub_index: 2, title: '해지의 효과' });
    expect(a.clauses).toHaveLength(3);
    expect(a.clauses[1]).toContain('14일 이내에');
  });

  it('counts clauses per article; a lead sentence with 1./2./3. items is one clause', () => {
    const counts = Object.fromEntries(c.articles.map((a) => [a.number, a.clauses.length]));
    expect(counts).toMatchObject({ 제1조: 1, 제2조: 1, 제3조: 2, 제5조: 4, 제7조: 3, 제11조: 1, 제12조: 2, 제14조: 1 });
    expect(article(c, '제2조').clauses[0]).toMatch(/^이 계약에서 사용하는 용어의 뜻은 다음과 같다\.\n1\. "용역"이란/);
    expect(article(c, '제7조').clauses[1].split('\n')).toHaveLength(4);
  });

  it('keeps the title in the preamble, the signature block in closing and two exhibits', () => {
    expect(c.preamble).toMatch(/^# 소프트웨어 유지보수 용역계약서\n/);
    expect(c.closing).toContain('2025년 1월 1일');
    expect(c.closing).toContain('대표이사 이도윤 (인)');
    expect(article(c, '제15조').text).not.toContain('서명');
    expect(c.exhibits.map((e) => [e.number, e.index, e.title])).toEqual([
      ['별지 1', 1, '용역 범위'],
      ['별지 2', 2, '대금 지급 일정'],
    ]);
    expect(c.exhibits[0].content).toContain('| 장애 대응 |');
    expect(c.exhibits[1].content).toContain('제9조 제2항에 따라');
  });
});

describe('parseContract: other fixtures', () => {
  it('parses the standard contract with 제14조 (계약의 해제·해지) and no exhibits', () => {
    const s = parseContract(fixture('standard-service-contract.md'));
    expect(s.articles).toHaveLength(19);
    expect(article(s, '제14조').title).toBe('계약의 해제·해지');
    expect(article(s, '제14조').clauses).toHaveLength(3);
    expect(article(s, '제15조').title).toBe('해제·해지의 효과');
    expect(s.exhibits).toEqual([]);
    expect(s.closing).toBe('');
  });

  it('parses the plain-text lease: inline bodies, 1./(1) clauses, a wrapped reference and an unnumbered 【별지】', () => {
    const l = parseContract(fixture('lease-agreement.txt'));
    expect(l.articles.map((a) => a.number)).toEqual(Array.from({ length: 10 }, (_, k) => `제${k + 1}조`));
    expect(article(l, '제1조').clauses).toEqual([expect.stringMatching(/^임대인은 별지에 표시한 상가건물/)]);
    expect(article(l, '제1조').text).toMatch(/^제1조\(목적\) 임대인은/);
    expect(article(l, '제2조').clauses).toHaveLength(3);
    expect(article(l, '제4조').clauses.map((x) => x.slice(0, 2))).toEqual(['1.', '2.']);
    expect(article(l, '제10조').clauses.map((x) => x.slice(0, 3))).toEqual(['(1)', '(2)']);
    expect(article(l, '제7조').title).toBe('계약의 해지');
    expect(article(l, '제7조').clauses[1]).toBe(
      '② 임차인이\n제4조를 위반한 경우 임대인은 상당한 기간을 정하여 시정을 요구하고, 임차인이 그 기간 안에 시정하지 아니하면 이 계약을 해지할 수 있다.',
    );
    expect(l.exhibits).toEqual([expect.objectContaining({ number: '별지 1', index: 1, title: '임대차 목적물의 표시' })]);
    expect(l.exhibits[0].content).toMatch(/^소재지: 서울특별시 마포구 동교로 56/);
    expect(l.closing).toMatch(/^2025년 2월 10일\n/);
  });

  it('rejects the meeting memo with a reason naming the expected heading form', () => {
    const e = parseError(fixture('not-a-contract.md'));
    expect(e.reason).toBe(
      "no articles found: expected headings like '제1조 (목적)', 'Article 1 (Purpose)', 'Section 1. Definitions' or '1. Definitions' at the start of a line",
    );
    expect(e).toBeInstanceOf(DomainException);
    expect(e).toMatchObject({ code: 'CONTRACT_PARSE_ERROR', status: 422 });
    expect(e.message).toContain(e.reason);
  });

  it('parses the generated 200-article contract, deterministically', () => {
    const text = generateLargeContract();
    const g = parseContract(text);
    expect(g.articles).toHaveLength(200);
    expect(g.articles.map((a) => a.index)).toEqual(Array.from({ length: 200 }, (_, k) => k + 1));
    expect(g.articles.every((a) => a.title !== '' && a.clauses.length >= 1 && a.clauses.length <= 4)).toBe(true);
    expect(new Set(g.articles.map((a) => a.title)).size).toBeGreaterThan(50);
    expect(g.exhibits.map((e) => e.title)).toEqual(['세부 과업 목록', '연락 체계']);
    expect(generateLargeContract()).toBe(text);
    expect(parseContract(generateLargeContract(30)).articles).toHaveLength(30);
    expect(() => generateLargeContract(0)).toThrow(RangeError);
  });
});

describe('parseContract: headings', () => {
  it.each([
    '## 제1조 (목적)',
    '제1조(목적)',
    '제1조 (목적)',
    '**제1조 (목적)**',
    '## **제1조(목적)**',
    '【제1조】 목적',
    '[제1조] 목적',
    '제1조 【목적】',
    '제1조 [목적]',
    '제1조（목적）',
    '### 제 1 조 ( 목적 )',
    '## 제1조 목적',
    '**제1조 목적**',
  ])('reads %j as 제1조 titled 목적', (heading) => {
    const c = parseContract(`${heading}\n이 계약은 용역에 관한 사항을 정한다.\n\n제2조(기간) 1년으로 한다.`);
    expect(c.articles.map((a) => [a.number, a.title])).toEqual([
      ['제1조', '목적'],
      ['제2조', '기간'],
    ]);
    expect(c.articles[0].clauses).toEqual(['이 계약은 용역에 관한 사항을 정한다.']);
  });

  it('takes the rest of a plain heading line as the body, even when it starts with 이', () => {
    const [a] = parseContract('제1조(목적) 이 계약은 용역에 관한 사항을 정한다.').articles;
    expect(a).toMatchObject({ number: '제1조', title: '목적', clauses: ['이 계약은 용역에 관한 사항을 정한다.'] });
  });

  it('takes the text after a bold heading as the body', () => {
    const [a] = parseContract('**제3조 (계약기간)** 계약기간은 1년으로 한다.').articles;
    expect(a).toMatchObject({ title: '계약기간', clauses: ['계약기간은 1년으로 한다.'] });
    expect(a.text).toBe('제3조 (계약기간) 계약기간은 1년으로 한다.');
  });

  it('does not split on references at the start of a line', () => {
    const c = parseContract(
      [
        '제1조 (목적)',
        '① 이 계약은',
        '제10조에 따라 해지할 수 있다.',
        '제10조(계약의 해지)에 따른 해지도 같다.',
        '제10조 제1항에 따른 통지는 서면으로 한다.',
        '제10조 (계약의 해지) 및 제11조에 따른 해지도 같다.',
        '제3조의2에 따른 절차를 거친다.',
        '별지 1에 적힌 범위를 따른다.',
        '별지 1 기재 용역을 수행한다.',
        '제3자에게 알리지 아니한다.',
        '② 두 번째 항.',
      ].join('\n'),
    );
    expect(c.articles.map((a) => a.number)).toEqual(['제1조']);
    expect(c.exhibits).toEqual([]);
    expect(c.articles[0].clauses).toHaveLength(2);
    expect(c.articles[0].clauses[0].split('\n')).toHaveLength(9);
  });

  it('keeps document order for out-of-order and sub-articles', () => {
    const c = parseContract('제3조 (셋)\n본문\n제1조 (하나)\n본문\n제3조의2 (셋의 둘)\n본문\n제2조 (둘)\n본문');
    expect(c.articles.map((a) => a.number)).toEqual(['제3조', '제1조', '제3조의2', '제2조']);
    expect(c.articles[2]).toMatchObject({ index: 3, sub_index: 2, title: '셋의 둘' });
  });

  it('drops chapter headings, allows title-less and empty articles, and accepts CRLF and decomposed Hangul', () => {
    const c = parseContract(
      '제1장 총칙\r\n제1조 (목적)\r\n목적 조항.\r\n제2장 보칙\r\n제2조\r\n본문.\r\n제3조 (삭제)\r\n'.normalize('NFD'),
    );
    expect(c.articles.map((a) => [a.number, a.title, a.clauses.length])).toEqual([
      ['제1조', '목적', 1],
      ['제2조', '', 1],
      ['제3조', '삭제', 0],
    ]);
    expect(c.articles[0].text).toBe('제1조 (목적)\n목적 조항.');
  });

  it('treats lead text before ① as its own clause and numbers exhibits in order', () => {
    const c = parseContract('제1조 (정의)\n다음과 같이 정한다.\n① 가.\n② 나.\n\n[별지 2] 둘째\n내용\n【별지】\n셋째 서식\n내용 3');
    expect(c.articles[0].clauses).toEqual(['다음과 같이 정한다.', '① 가.', '② 나.']);
    expect(c.exhibits.map((e) => [e.number, e.title, e.content])).toEqual([
      ['별지 2', '둘째', '내용'],
      ['별지 3', '셋째 서식', '내용 3'],
    ]);
  });
});

describe('parseContract: rejection', () => {
  it('rejects duplicate article numbers, naming the number and both lines', () => {
    const e = parseError('제1조 (목적)\n본문\n제2조 (기간)\n본문\n제2조 (기간)\n본문');
    expect(e.reason).toBe('duplicate article number 제2조 (lines 3 and 5): each article heading must be unique');
    expect(e.line).toBe(5);
  });

  it('rejects duplicate exhibits, including an unnumbered one that collides', () => {
    expect(parseError('제1조 (목적)\n본문\n별지 1 (가)\n내용\n별지 1 (나)').reason).toMatch(/^duplicate exhibit number 별지 1/);
    expect(parseError('제1조 (목적)\n본문\n【별지】 가\n내용\n별지 1 (나)').reason).toMatch(/^duplicate exhibit number 별지 1/);
  });

  it('rejects empty text, exhibit-only text, article number 0 and unclosed title brackets', () => {
    expect(parseError('  \n\n ').reason).toMatch(/^empty document: expected contract text with headings like '제1조 \(목적\)'/);
    expect(parseError('## 별지 1 (용역 범위)\n내용').reason).toMatch(/^no articles found \(the document has exhibits/);
    expect(parseError('제0조 (목적)\n본문').reason).toMatch(/^invalid article number 0 in '제0조 \(목적\)' on line 1/);
    const unclosed = parseError('제1조 (목적)\n본문\n제2조 (계약기간\n본문');
    expect(unclosed.reason).toMatch(/^unclosed title bracket '\(' in heading '제2조 \(계약기간': expected '제2조 \(제목\)'/);
    expect(unclosed.line).toBe(3);
    expect(parseError(JSON.parse('42') as string).reason).toBe('expected the contract as a string of text');
  });
});
