/**
 * Line classification for English contracts: `Article 5 – Termination`, `SECTION 3. PAYMENT`, `Clause 7: Notices`,
 * `## 1. Definitions`, and exhibits `Schedule 2 (Fees)`, `EXHIBIT A`, `Annex I – Service Levels`, `Appendix 1`.
 * A line that reads as a sentence (`Section 3 shall survive termination.`) is text, and a dotted number
 * (`3.2 The Customer shall …`) is a clause of its section, never a heading. A bare numbered heading (`1. Definitions`)
 * is only a candidate: the parser accepts it when the document has no worded headings and the numbers run on.
 */
import type { LineClass } from './contract-headings';

const ARTICLE_RE = /^(ARTICLE|Article|SECTION|Section|CLAUSE|Clause)\s+(\d{1,4}|[IVXLC]{1,7})(?![.\d]*\d)\.?(?=[\s:.\-–—(]|$)/;
const NUMBERED_RE = /^(\d{1,3})\.?(?=\s)(?!\s*\d)/;
const EXHIBIT_RE =
  /^(SCHEDULE|Schedule|EXHIBIT|Exhibit|ANNEX|Annex|APPENDIX|Appendix|ATTACHMENT|Attachment)(?:\s+(\d{1,3}|[A-Z]|[IVX]{1,5}))?\.?(?=[\s:.\-–—(]|$)/;
const CHAPTER_RE = /^(?:PART|Part|CHAPTER|Chapter)\s+(?:\d{1,3}|[IVX]{1,5})\b/;
const BREAK_RE = /^(?:IN WITNESS WHEREOF|Signed (?:by|for and on behalf of)|SIGNATURES?\b|Signature page)/i;
const MONTHS = 'January|February|March|April|May|June|July|August|September|October|November|December';
const DATE_RE = new RegExp(`^(?:\\d{1,2}\\s+(?:${MONTHS})\\s+\\d{4}|(?:${MONTHS})\\s+\\d{1,2},\\s*\\d{4})\\.?$`);
const SEPARATOR_RE = /^\s*[:.\-–—]\s*/;

const ROMAN: Record<string, number> = { I: 1, V: 5, X: 10, L: 50, C: 100 };

/** 'IV' → 4; a digit string → its number; one letter 'A' → 1 (Exhibit A is the first exhibit). */
export function labelIndex(label: string): number {
  if (/^\d+$/.test(label)) return Number(label);
  if (/^[IVXLC]+$/.test(label) && (label.length > 1 || 'IVX'.includes(label))) {
    const values = Array.from(label, (c) => ROMAN[c]);
    return values.reduce((sum, v, i) => sum + (v < (values[i + 1] ?? 0) ? -v : v), 0);
  }
  return label.toUpperCase().charCodeAt(0) - 64;
}

/** A title that reads as a sentence: long, ending in a full stop after several words, or with a modal verb. */
function sentenceLike(title: string): boolean {
  const words = title.split(/\s+/).filter(Boolean);
  return words.length > 10 || (/[.;,]$/.test(title) && words.length > 3) || /\b(?:shall|will|must|may|is|are)\b/.test(title);
}

/** The title after the number: `(Purpose)`, `– Purpose`, `: Purpose`, `. Purpose` or a bare short title; null if a sentence. */
function readTitle(rest: string): string | null {
  const t = rest.trim();
  if (t === '') return '';
  const bracketed = /^\(([^)]*)\)\s*$/.exec(t);
  if (bracketed) return bracketed[1].trim();
  const title = t.replace(SEPARATOR_RE, '').replace(/[.:]$/, '').trim();
  return sentenceLike(t.replace(SEPARATOR_RE, '')) ? null : title;
}

function stripDecoration(line: string): { core: string; decorated: boolean } {
  let s = line.trim();
  const hashes = /^#{1,6}\s+/.exec(s);
  if (hashes) s = s.slice(hashes[0].length).replace(/\s+#+$/, '');
  const bold = /^(\*\*|__)(.+?)\1\s*$/.exec(s);
  if (bold) s = bold[2];
  return { core: s.trim(), decorated: Boolean(hashes || bold) };
}

/** The article word a document uses, as its canonical number's prefix: 'Article 5', 'Section 5', 'Clause 5'. */
function articleWord(word: string): string {
  return word[0] + word.slice(1).toLowerCase();
}

/** Classifies one line of an English contract; `numbered` marks a bare `1. Definitions` candidate. */
export function classifyEnglishLine(line: string): LineClass & { numbered?: boolean; word?: string; label?: string } {
  const { core, decorated } = stripDecoration(line);
  if (core === '') return { kind: 'text' };
  const article = ARTICLE_RE.exec(core);
  if (article) {
    const title = readTitle(core.slice(article[0].length));
    if (title !== null) {
      const index = labelIndex(article[2]);
      return { kind: 'article', index, sub_index: null, title, display: core, rest: '', word: articleWord(article[1]) };
    }
  }
  const exhibit = EXHIBIT_RE.exec(core);
  if (exhibit && (exhibit[2] || decorated || core === exhibit[0])) {
    const title = readTitle(core.slice(exhibit[0].length));
    if (title !== null) {
      const label = exhibit[2];
      const index = label ? labelIndex(label) : null;
      return { kind: 'exhibit', index, title, display: core, rest: '', word: articleWord(exhibit[1]), label };
    }
  }
  if (CHAPTER_RE.test(core)) return { kind: 'chapter' };
  if (BREAK_RE.test(core) || DATE_RE.test(core)) return { kind: 'break' };
  const numbered = NUMBERED_RE.exec(core);
  if (numbered) {
    const title = readTitle(core.slice(numbered[0].length));
    if (title && /^[A-Z]/.test(title) && title.split(/\s+/).length <= 6 && !/[;,]$/.test(title)) {
      return { kind: 'article', index: Number(numbered[1]), sub_index: null, title, display: core, rest: '', numbered: true };
    }
  }
  return { kind: 'text' };
}
