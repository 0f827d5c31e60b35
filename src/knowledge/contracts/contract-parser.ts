import { classifyLine, type LineClass } from './contract-headings';
import { classifyEnglishLine } from './contract-headings-en';
import type { Article, Exhibit, ParsedContract } from './contract-types';
import { ContractParseError } from './contract-types';

export type { Article, Exhibit, ParsedContract } from './contract-types';
export { ContractParseError } from './contract-types';

const HEADING_EXAMPLE =
  "headings like '제1조 (목적)', 'Article 1 (Purpose)', 'Section 1. Definitions' or '1. Definitions' at the start of a line";

/** Clause (항) markers, in the order they are preferred as the clause level of an article. */
const CIRCLED_RE = /^[\u2460-\u2473\u3251-\u325F\u32B1-\u32BF]/; // ①–⑳, ㉑–㉟, ㊱–㊿
const LIST_STYLES: readonly RegExp[] = [
  /^\d{1,2}\.(?:\s|$)/,
  /^[(（]\d{1,2}[)）]/,
  /^\d{1,2}\)\s/,
  /^(?:(?:Section|Clause)\s+)?\d{1,3}\.\d{1,3}\.?(?:\s|$)/, // English sub-sections: '3.2 The Customer shall …'
  /^\([a-z]\)\s/, // English items: '(a) …'
];
const BULLET_RE = /^[-*+]\s+/;

interface Block {
  kind: 'article' | 'exhibit';
  /** canonical number: '제10조', '제3조의2', '별지 1'; 'Article 5', 'Section 5', 'Schedule 2', 'Exhibit A' */
  number?: string;
  line: number;
  index: number | null;
  sub_index: number | null;
  title: string;
  display: string;
  /** True when body[0] came from the heading line itself ('제1조(목적) 이 계약은 …'). */
  inline: boolean;
  body: string[];
}

function normalise(text: string): string[] {
  return text
    .normalize('NFC')
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .replace(/[\u00A0\u3000]/g, ' ')
    .split('\n');
}

/** Drops leading/trailing blank lines and trailing spaces; keeps inner blank lines. */
function tidy(lines: readonly string[]): string {
  return lines
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/^\n+|\n+$/g, '');
}

/**
 * Splits an article body into clauses. Circled numbers (①②③) are always the clause level, with '1.'-style items
 * kept inside their clause. Without circled numbers, '1.', '(1)' or '1)' lists are clauses only when the body starts
 * with one; a lead sentence followed by a list ('다음 각 호와 같다.' + '1. …') is a single clause with its items.
 */
export function splitClauses(body: readonly string[]): string[] {
  const lines = body.map((l) => l.trim()).filter((l) => l !== '');
  if (lines.length === 0) return [];
  const unbullet = (l: string): string => l.replace(BULLET_RE, '');
  let marker: RegExp | undefined = lines.some((l) => CIRCLED_RE.test(unbullet(l))) ? CIRCLED_RE : undefined;
  marker ??= LIST_STYLES.find((re) => re.test(unbullet(lines[0])));
  if (!marker) return [lines.join('\n')];
  const clauses: string[][] = [];
  for (const line of lines) {
    if (marker.test(unbullet(line))) clauses.push([unbullet(line)]);
    else if (clauses.length === 0) clauses.push([line]);
    else clauses[clauses.length - 1].push(line);
  }
  return clauses.map((c) => c.join('\n'));
}

function toArticle(b: Block): Article {
  const index = b.index ?? 0;
  return {
    number: b.number ?? `제${index}조${b.sub_index === null ? '' : `의${b.sub_index}`}`,
    index,
    sub_index: b.sub_index,
    title: b.title,
    clauses: splitClauses(b.body),
    text: tidy([b.display, ...b.body.slice(b.inline ? 1 : 0)]),
  };
}

/** An exhibit heading without a title takes a short first line as its title ('【별지】' / '임대차 목적물의 표시'). */
function toExhibit(b: Block, index: number): Exhibit {
  let title = b.title;
  let body = b.body;
  if (title === '') {
    const first = body.findIndex((l) => l.trim() !== '');
    const candidate = first < 0 ? '' : body[first].trim();
    if (candidate !== '' && candidate.length <= 40 && !/[|:：]|다\.?$/.test(candidate)) {
      title = candidate.replace(/^#{1,6}\s+/, '').replace(/^(\*\*|__)(.+)\1$/, '$2');
      body = body.slice(first + 1);
    }
  }
  return { number: b.number ?? `별지 ${index}`, index, title, content: tidy(body) };
}

function rejectDuplicates(numbers: readonly { number: string; line: number }[], what: string): void {
  const seen = new Map<string, number>();
  for (const { number, line } of numbers) {
    const first = seen.get(number);
    if (first !== undefined) {
      throw new ContractParseError(
        `duplicate ${what} number ${number} (lines ${first} and ${line}): each ${what} heading must be unique`,
        line,
      );
    }
    seen.set(number, line);
  }
}

function validate(blocks: readonly Block[]): void {
  for (const b of blocks) {
    if (b.index === 0 || b.sub_index === 0) {
      const what = b.kind === 'article' ? 'article' : 'exhibit';
      throw new ContractParseError(`invalid ${what} number 0 in '${b.display}' on line ${b.line}: numbers start at 1`, b.line);
    }
  }
  const articles = blocks.filter((b) => b.kind === 'article');
  if (articles.length === 0) {
    const hint = blocks.length > 0 ? ' (the document has exhibits (별지) but no articles)' : '';
    throw new ContractParseError(`no articles found${hint}: expected ${HEADING_EXAMPLE}`);
  }
  rejectDuplicates(
    articles.map((b) => ({ number: b.number ?? `제${b.index}조${b.sub_index === null ? '' : `의${b.sub_index}`}`, line: b.line })),
    'article',
  );
}

type Classified = LineClass & { number?: string };

/**
 * The line classifier for this document: Korean headings (제N조, 별지 N) when it has any Korean article, else
 * English ones (contract-headings-en.ts). A bare numbered heading ('1. Definitions') counts only in a document
 * without worded article headings, outside exhibits, and when it continues the numbering (1, 2, 3 …), so a list
 * item inside a section stays text.
 */
function lineClassifier(lines: readonly string[], open: () => Block | undefined): (line: string) => Classified {
  if (lines.some((l) => classifyLine(l).kind === 'article')) return classifyLine;
  const english = lines.map((l) => classifyEnglishLine(l)).filter((c) => c.kind === 'article');
  if (english.length === 0) return classifyLine; // no articles either way: the Korean reading names what is missing
  const worded = english.some((c) => !c.numbered);
  let last = 0;
  return (line) => {
    const c = classifyEnglishLine(line);
    if (c.kind === 'exhibit') return { ...c, number: `${c.word} ${c.label ?? '?'}` };
    if (c.kind !== 'article') return c;
    if (c.numbered && (worded || open()?.kind === 'exhibit' || c.index !== last + 1)) return { kind: 'text' };
    last = c.index;
    return { ...c, number: `${c.word ?? 'Section'} ${c.index}` };
  };
}

/**
 * Parses a Korean or English contract (plain text or markdown) into preamble, articles (제N조, 제N조의M; Article N,
 * Section N, Clause N, 'N. Title') and exhibits (별지 N; Schedule N, Exhibit A, Annex I, Appendix 1).
 * Headings may be `## 제1조 (목적)`, `제1조(목적) 본문…`, `**제1조 (목적)**`, `【제1조】 목적`, `[별지 1] 제목`, `【별지】`.
 * Throws ContractParseError when the text has no articles, duplicate numbers, article number 0 or a heading whose
 * title bracket is never closed.
 */
export function parseContract(text: string): ParsedContract {
  if (typeof text !== 'string') throw new ContractParseError('expected the contract as a string of text');
  const lines = normalise(text);
  if (lines.every((l) => l.trim() === '')) {
    throw new ContractParseError(`empty document: expected contract text with ${HEADING_EXAMPLE}`);
  }
  const preamble: string[] = [];
  const closing: string[] = [];
  const blocks: Block[] = [];
  let state: 'preamble' | 'block' | 'closing' = 'preamble';
  const current = (): Block => blocks[blocks.length - 1];
  const classify = lineClassifier(lines, () => (state === 'block' ? current() : undefined));

  lines.forEach((line, i) => {
    const c = classify(line);
    if (c.kind === 'malformed') throw new ContractParseError(`${c.reason} (line ${i + 1})`, i + 1);
    if (c.kind === 'article' || c.kind === 'exhibit') {
      blocks.push({
        kind: c.kind,
        number: c.number,
        line: i + 1,
        index: c.index,
        sub_index: c.kind === 'article' ? c.sub_index : null,
        title: c.title,
        display: c.display,
        inline: c.rest !== '',
        body: c.rest === '' ? [] : [c.rest],
      });
      state = 'block';
      return;
    }
    const inExhibit = state === 'block' && current().kind === 'exhibit';
    if (!inExhibit && (c.kind === 'chapter' || c.kind === 'break')) {
      if (state === 'block') state = 'closing';
      const keep = c.kind === 'break' && !/^(?:-{3,}|\*{3,}|_{3,})$/.test(line.trim());
      if (keep) (state === 'preamble' ? preamble : closing).push(line);
      return;
    }
    if (state === 'preamble') preamble.push(line);
    else if (state === 'closing') closing.push(line);
    else current().body.push(line);
  });

  validate(blocks);
  let nextExhibit = 1;
  const exhibits: Exhibit[] = [];
  const exhibitLines: { number: string; line: number }[] = [];
  for (const b of blocks.filter((x) => x.kind === 'exhibit')) {
    const index = b.index ?? nextExhibit; // unnumbered '【별지】' continues the numbering
    nextExhibit = Math.max(nextExhibit, index + 1);
    const exhibit = toExhibit({ ...b, number: b.number?.replace(/ \?$/, ` ${index}`) }, index);
    exhibits.push(exhibit);
    exhibitLines.push({ number: exhibit.number, line: b.line });
  }
  rejectDuplicates(exhibitLines, 'exhibit');
  return {
    preamble: tidy(preamble),
    articles: blocks.filter((b) => b.kind === 'article').map(toArticle),
    exhibits,
    closing: tidy(closing),
  };
}
