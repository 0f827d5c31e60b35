import { searchTerms } from '../documents/search-query';

/**
 * What a contract question is about, in words an article uses: each topic has the phrasings of a question
 * about it and of a clause on it, in English and Korean. A question names topics; an article answers one when
 * its title or text speaks of it. `related` topics are searched and shown beside it (a question on the governing
 * law also finds the disputes article) without counting as its clause.
 */
export interface ContractTopic {
  name: string;
  label: { en: string; ko: string };
  question: RegExp;
  clause: RegExp;
  /** words that make the search find the clause */
  searchWords: string;
  related?: string[];
}

export const CONTRACT_TOPICS: ContractTopic[] = [
  {
    name: 'governing_law',
    label: { en: 'the governing law', ko: '준거법' },
    question:
      /governing\s+law|applicable\s+law|which\s+law|what\s+law|law\s+(?:governs|applies)|govern(?:s|ed)?\s+(?:by|this|the)|준거\s*법|적용\s*(?:되는\s*)?법/i,
    clause: /governing\s+law|applicable\s+law|governed\s+by|laws\s+of|준거\s*법/i,
    searchWords: 'governing law applicable 준거법',
    related: ['disputes'],
  },
  {
    name: 'disputes',
    label: { en: 'disputes', ko: '분쟁 해결' },
    question: /disputes?|jurisdiction|courts?\b|arbitrat\w*|litigat\w*|분쟁|관할|법원|중재|소송/i,
    clause: /disputes?|jurisdiction|courts?\b|arbitrat\w*|분쟁|관할|법원|중재/i,
    searchWords: 'dispute jurisdiction court 분쟁 관할',
  },
  {
    name: 'termination',
    label: { en: 'termination', ko: '해지' },
    question: /terminat\w*|cancel\w*|end\s+the\s+(?:agreement|contract)|해지|해제|종료/i,
    clause: /terminat\w*|rescission|해지|해제/i,
    searchWords: 'termination 해지',
  },
  {
    name: 'payment',
    label: { en: 'fees and payment', ko: '대금 지급' },
    question: /\bfees?\b|payments?|\bpay\b|\bpaid\b|price|invoic\w*|대금|지급|계약\s*금액|금액|비용/i,
    clause: /\bfees?\b|payments?|\bpay\b|invoic\w*|대금|지급|금액/i,
    searchWords: 'fees payment 대금 지급',
  },
  {
    name: 'confidentiality',
    label: { en: 'confidentiality', ko: '비밀유지' },
    question: /confidential\w*|non-disclosure|secret|비밀|기밀/i,
    clause: /confidential\w*|non-disclosure|비밀|기밀/i,
    searchWords: 'confidentiality 비밀유지',
  },
  {
    name: 'damages',
    label: { en: 'damages and liability', ko: '손해배상' },
    question: /damages?|liabilit\w*|liable|compensat\w*|penalt\w*|손해|배상|위약/i,
    clause: /damages?|liabilit\w*|liable|compensat\w*|손해|배상|위약/i,
    searchWords: 'damages liability 손해배상',
  },
  {
    name: 'term',
    label: { en: 'the term', ko: '계약 기간' },
    question: /\bterm\b|duration|how\s+long|renew\w*|expir\w*|계약\s*기간|기간|갱신|만료/i,
    clause: /\bterm\b|duration|renew\w*|expir\w*|기간|갱신/i,
    searchWords: 'term duration renewal 기간 갱신',
  },
  {
    name: 'intellectual_property',
    label: { en: 'intellectual property', ko: '지식재산권' },
    question: /intellectual\s+property|copyright|patent|ownership\s+of|지식\s*재산|저작권|특허/i,
    clause: /intellectual\s+property|copyright|patent|지식\s*재산|저작권/i,
    searchWords: 'intellectual property copyright 지식재산권 저작권',
  },
  {
    name: 'force_majeure',
    label: { en: 'force majeure', ko: '불가항력' },
    question: /force\s+majeure|act\s+of\s+god|불가항력/i,
    clause: /force\s+majeure|불가항력/i,
    searchWords: 'force majeure 불가항력',
  },
  {
    name: 'assignment',
    label: { en: 'assignment', ko: '권리 양도' },
    question: /assign\w*|transfer\s+(?:the\s+)?(?:rights|agreement|contract)|양도/i,
    clause: /assign\w*|양도/i,
    searchWords: 'assignment 양도',
  },
  {
    name: 'subcontracting',
    label: { en: 'subcontracting', ko: '하도급' },
    question: /subcontract\w*|하도급|재위탁/i,
    clause: /subcontract\w*|하도급|재위탁/i,
    searchWords: 'subcontracting 하도급',
  },
  {
    name: 'acceptance',
    label: { en: 'acceptance', ko: '검수' },
    question: /acceptance|inspect\w*|검수|검사/i,
    clause: /acceptance|inspect\w*|검수|검사/i,
    searchWords: 'acceptance inspection 검수',
  },
  {
    name: 'warranty',
    label: { en: 'warranties', ko: '하자 보증' },
    question: /warrant\w*|defects?|하자|보증/i,
    clause: /warrant\w*|defects?|하자|보증/i,
    searchWords: 'warranty defects 하자 보증',
  },
];

const BY_NAME = new Map(CONTRACT_TOPICS.map((t) => [t.name, t]));

/** The topics a question asks about (none when it names no known topic). */
export function topicsOfQuestion(question: string): ContractTopic[] {
  return CONTRACT_TOPICS.filter((t) => t.question.test(question));
}

/** The topics shown beside `topics` (their `related`), not already among them. */
export function relatedTopics(topics: ContractTopic[]): ContractTopic[] {
  const names = new Set(topics.map((t) => t.name));
  return [...new Set(topics.flatMap((t) => t.related ?? []))].filter((n) => !names.has(n)).map((n) => BY_NAME.get(n)!);
}

/** Does the article (its title, or its text) speak of the topic? */
export function articleCovers(article: { title: string; text?: string }, topic: ContractTopic): boolean {
  return topic.clause.test(article.title) || topic.clause.test(article.text ?? '');
}

/** Words every contract question and article share: they say nothing about relevance. */
const GENERIC = /^(?:agreement|contract|clause|article|section|party|parties|계약|계약서|조항|당사자)/;

/** The share of a query's significant terms the article contains (as word prefixes), 0..1; 1 when it has none. */
export function termCoverage(query: string, article: { title: string; text?: string }): number {
  const terms = searchTerms(query).filter((t) => t.length > 1 && !GENERIC.test(t));
  if (!terms.length) return 1;
  const body = `${article.title}\n${article.text ?? ''}`.toLowerCase();
  return terms.filter((t) => body.includes(t)).length / terms.length;
}

/** Below this share of the query's terms, an article found by a search without a known topic is not listed. */
export const MIN_TERM_COVERAGE = 0.5;

/**
 * The search hits about the query. With known topics: the articles whose title names one of them (or a
 * related topic), else those whose text speaks of one of them (not of a related one); without: those holding at least MIN_TERM_COVERAGE of
 * the query's significant terms. Order kept.
 */
export function relevantArticles<T extends { title: string; text?: string }>(query: string, hits: T[]): T[] {
  const known = topicsOfQuestion(query);
  if (!known.length) return hits.filter((h) => termCoverage(query, h) >= MIN_TERM_COVERAGE);
  const topics = [...known, ...relatedTopics(known)];
  const titled = hits.filter((h) => topics.some((t) => t.clause.test(h.title)));
  // a related topic counts by title only: "court order" in a confidentiality article is not about disputes
  return titled.length ? titled : hits.filter((h) => known.some((t) => articleCovers(h, t)));
}
