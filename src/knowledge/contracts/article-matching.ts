/**
 * Matching a user's contract articles to the articles of a standard contract (표준계약서), and pulling article /
 * exhibit references ('제5조랑 제7조', '10조', '별지 2') out of a user's question.
 */

import { labelIndex } from './contract-headings-en';
import type { Article } from './contract-types';

/** The fields of an `Article` matching needs: articles (parsed or stored) fit, and so does anything with a number and a title. */
export type MatchableArticle = Pick<Article, 'number' | 'title'> & { clauses?: readonly string[] };

export interface ArticleMatch<U extends MatchableArticle, S extends MatchableArticle> {
  user: U;
  /** The best standard article, or null when even the best scores below the threshold. */
  standard: S | null;
  /** Combined score in [0, 1] of the best candidate (also reported when it is below the threshold). */
  score: number;
  title_score: number;
  clause_score: number;
}

export interface MatchOptions {
  /** Minimum combined score for a match; default DEFAULT_MATCH_THRESHOLD. */
  threshold?: number;
  /** Weight of the title in the combined score, the rest going to clause text; default 0.8. */
  titleWeight?: number;
}

export const DEFAULT_MATCH_THRESHOLD = 0.3;
const DEFAULT_TITLE_WEIGHT = 0.8;

/** Words too common in contract titles to tell articles apart ('계약의 해지' vs '계약의 변경'). */
const GENERIC_TITLE_WORDS = new Set(['계약', '계약의', '및', '등', '의', '관한', '대한', '관하여', '대하여', '사항']);
const CLAUSE_MARKER_RE = /(?:^|\n)\s*(?:[\u2460-\u2473\u3251-\u325F\u32B1-\u32BF]|\d{1,2}[.)]|[(（]\d{1,2}[)）])/g;

/** Lower-cases and keeps only letters and digits: '계약의 해제·해지' → '계약의해제해지'. */
export function normalizeTitle(text: string): string {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/** The title without generic words ('계약의 해지' → '해지'); the normalised title when nothing else is left. */
function coreTitle(text: string): string {
  const words = text
    .normalize('NFC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u);
  const core = words.filter((w) => w !== '' && !GENERIC_TITLE_WORDS.has(w)).join('');
  return core === '' ? normalizeTitle(text) : core;
}

/** Character bigrams of an already normalised string; a one-character string is its own single "bigram". */
export function bigrams(normalised: string): Set<string> {
  const chars = Array.from(normalised);
  if (chars.length === 1) return new Set(chars);
  const out = new Set<string>();
  for (let i = 0; i + 1 < chars.length; i++) out.add(chars[i] + chars[i + 1]);
  return out;
}

function diceOfSets(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const g of small) if (large.has(g)) shared++;
  return (2 * shared) / (a.size + b.size);
}

/** Sørensen–Dice similarity of the character bigrams of two strings, after normalizeTitle; in [0, 1]. */
export function diceSimilarity(a: string, b: string): number {
  return diceOfSets(bigrams(normalizeTitle(a)), bigrams(normalizeTitle(b)));
}

interface Prepared {
  full: Set<string>;
  core: Set<string>;
  clauses: Set<string>;
}

function prepare(a: MatchableArticle): Prepared {
  const clauseText = (a.clauses ?? []).join('\n').replace(CLAUSE_MARKER_RE, ' ');
  return {
    full: bigrams(normalizeTitle(a.title)),
    core: bigrams(coreTitle(a.title)),
    clauses: bigrams(normalizeTitle(clauseText)),
  };
}

/** Title similarity: the mean of the Dice scores of whole titles and of titles without generic words. */
function titleScore(u: Prepared, s: Prepared): number {
  return (diceOfSets(u.full, s.full) + diceOfSets(u.core, s.core)) / 2;
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * For each user article, the standard article with the most similar title (clause text as a weaker signal). Several
 * user articles may map to the same standard article; ties go to the earlier standard article.
 */
export function matchArticles<U extends MatchableArticle, S extends MatchableArticle>(
  userArticles: readonly U[],
  standardArticles: readonly S[],
  options: MatchOptions = {},
): ArticleMatch<U, S>[] {
  const threshold = options.threshold ?? DEFAULT_MATCH_THRESHOLD;
  const titleWeight = options.titleWeight ?? DEFAULT_TITLE_WEIGHT;
  if (!(threshold >= 0 && threshold <= 1)) throw new RangeError(`threshold must be within [0, 1], got ${threshold}`);
  if (!(titleWeight >= 0 && titleWeight <= 1)) throw new RangeError(`titleWeight must be within [0, 1], got ${titleWeight}`);
  const standards = standardArticles.map((s) => ({ article: s, prepared: prepare(s) }));
  return userArticles.map((user) => {
    const u = prepare(user);
    let best: ArticleMatch<U, S> = { user, standard: null, score: 0, title_score: 0, clause_score: 0 };
    for (const { article, prepared } of standards) {
      const t = titleScore(u, prepared);
      const c = diceOfSets(u.clauses, prepared.clauses);
      const score = titleWeight * t + (1 - titleWeight) * c;
      if (score > best.score) best = { user, standard: article, score, title_score: t, clause_score: c };
    }
    const matched = best.standard !== null && best.score >= threshold;
    return {
      user,
      standard: matched ? best.standard : null,
      score: round(best.score),
      title_score: round(best.title_score),
      clause_score: round(best.clause_score),
    };
  });
}

export interface ArticleRefs {
  /** Article numbers in order of first mention, without repeats: '제3조의2' contributes 3. */
  articles: number[];
  /** Exhibit (별지) numbers in order of first mention, without repeats. */
  exhibits: number[];
  /** Sub-articles mentioned ('제3조의2' → { index: 3, sub_index: 2 }). */
  sub_articles: { index: number; sub_index: number }[];
}

/** Ranges longer than this are read as two separate references ('제1조~제500조' is unlikely to mean 500 articles). */
const MAX_RANGE = 50;
const RANGE_RE = /(?<![0-9A-Za-z])(?:제\s*)?(\d{1,4})\s*(?:조\s*)?(?:~|～|-|–|부터)\s*(?:제\s*)?(\d{1,4})\s*조(?!\s*의\s*\d)/g;
const ARTICLE_RE = /(?<![0-9A-Za-z])(제\s*)?(\d{1,4})\s*조(?:\s*의\s*(\d{1,3}))?/g;
/** After a bare '1조': money ('1조 원', '1조2천억') or words like '조건', not an article. */
const NOT_ARTICLE_AFTER_RE = /^(?:\s*원|\s*억|천|만|건|\s*\d+\s*(?:천|억|만|원))/;
/** English references: 'Article 5', 'Section 3.2' (→ 3), 'Clauses 5 and 7', 'Sections 3-5', 'Art. 4', '§ 9'. */
const EN_ARTICLE_RE =
  /(?:\b(?:articles?|sections?|clauses?|art\.)|§)\s*(\d{1,4})(?:\.\d{1,3})*((?:\s*(?:,|and|or|&|to|through|-|–)\s*\d{1,4}(?:\.\d{1,3})*)*)/gi;
/** English exhibits: 'Schedule 2', 'Exhibit A', 'Annex I', 'Appendices 1 and 2'. */
const EN_EXHIBIT_RE =
  /\b(?:schedules?|exhibits?|annex(?:es)?|appendix|appendices|attachments?)\s+(\d{1,3}|[A-Z]\b|[IVX]{1,5}\b)((?:\s*(?:,|and|&)\s*(?:\d{1,3}|[A-Z]\b|[IVX]{1,5}\b))*)/gi;
const EXHIBIT_RE = /별지\s*(?:제\s*)?(\d{1,3})(?:\s*호)?((?:\s*(?:,|및|과|와|랑|하고)\s*(?:제\s*)?\d{1,3}(?:\s*호)?(?!\s*조))*)/g;

/**
 * Article and exhibit numbers mentioned in a question: '제5조랑 제7조 알려줘' → articles [5, 7]; '10조' → [10];
 * '제5조부터 제7조까지' → [5, 6, 7]; '별지 2 내용' / '별지 1, 2' → exhibits [2] / [1, 2]. Bare amounts like '1조 원'
 * are not article references.
 */
export function extractArticleRefs(text: string): ArticleRefs {
  const hits: { pos: number; articles: number[]; sub?: { index: number; sub_index: number } }[] = [];
  let rest = text.normalize('NFC');
  for (const m of rest.matchAll(RANGE_RE)) {
    const [lo, hi] = [Number(m[1]), Number(m[2])];
    const span = hi > lo && hi - lo <= MAX_RANGE ? Array.from({ length: hi - lo + 1 }, (_, k) => lo + k) : [lo, hi];
    hits.push({ pos: m.index, articles: span });
  }
  rest = rest.replace(RANGE_RE, (s) => ' '.repeat(s.length));
  for (const m of rest.matchAll(ARTICLE_RE)) {
    const bare = m[1] === undefined;
    if (bare && NOT_ARTICLE_AFTER_RE.test(rest.slice(m.index + m[0].length))) continue;
    const index = Number(m[2]);
    const sub = m[3] === undefined ? undefined : { index, sub_index: Number(m[3]) };
    hits.push({ pos: m.index, articles: [index], sub });
  }
  hits.push(...englishArticleHits(text.normalize('NFC')));
  hits.sort((a, b) => a.pos - b.pos);

  const articles: number[] = [];
  const sub_articles: ArticleRefs['sub_articles'] = [];
  for (const h of hits) {
    for (const n of h.articles) if (n > 0 && !articles.includes(n)) articles.push(n);
    if (h.sub && h.sub.sub_index > 0 && !sub_articles.some((s) => s.index === h.sub?.index && s.sub_index === h.sub.sub_index)) {
      sub_articles.push(h.sub);
    }
  }
  const exhibits: number[] = [];
  for (const m of text.normalize('NFC').matchAll(EXHIBIT_RE)) {
    const more = Array.from(m[2].matchAll(/\d{1,3}/g), (x) => Number(x[0]));
    for (const n of [Number(m[1]), ...more]) if (n > 0 && !exhibits.includes(n)) exhibits.push(n);
  }
  for (const n of englishExhibits(text.normalize('NFC'))) if (n > 0 && !exhibits.includes(n)) exhibits.push(n);
  return { articles, exhibits, sub_articles };
}

/** The index of an exhibit's canonical number: '별지 2' → 2, 'Schedule 2' → 2, 'Exhibit A' → 1, 'Annex II' → 2. */
export function exhibitIndex(number: string): number {
  const label = number.trim().split(/\s+/).at(-1) ?? '';
  return /^(?:\d+|[A-Z]|[IVX]+)$/.test(label) ? labelIndex(label) : 0;
}

/** 'Article 5', 'Sections 3 and 7', 'Clauses 2-4' (a range when joined by to / through / a dash). */
function englishArticleHits(text: string): { pos: number; articles: number[] }[] {
  return Array.from(text.matchAll(EN_ARTICLE_RE), (m) => {
    const numbers = [Number(m[1])];
    for (const [, join, n] of m[2].matchAll(/\s*(,|and|or|&|to|through|-|–)\s*(\d{1,4})(?:\.\d{1,3})*/gi)) {
      const lo = numbers[numbers.length - 1];
      const hi = Number(n);
      const range = /to|through|-|–/i.test(join) && hi > lo && hi - lo <= MAX_RANGE;
      numbers.push(...(range ? Array.from({ length: hi - lo }, (_, k) => lo + k + 1) : [hi]));
    }
    return { pos: m.index, articles: numbers };
  });
}

/** Exhibit indexes of 'Schedule 2', 'Exhibit A' (→ 1), 'Annex II' (→ 2), 'Appendices 1 and 2'. */
function englishExhibits(text: string): number[] {
  return Array.from(text.matchAll(EN_EXHIBIT_RE)).flatMap((m) => {
    const labels = [m[1], ...Array.from(m[2].matchAll(/\d{1,3}|\b[A-Z]\b|\b[IVX]{1,5}\b/gi), (x) => x[0])];
    // a lower-case word after 'exhibit' ('schedule a call') is no label: letters count only in capitals
    return labels.filter((l) => /^\d+$/.test(l) || l === l.toUpperCase()).map(labelIndex);
  });
}
