/**
 * Line classification for Korean contracts: which lines start an article (제N조), a sub-article (제N조의M), an
 * exhibit (별지 N), a chapter (제N장), or end the article section (signature block). Only the start of a line can be a
 * heading, and a number glued to following text ('제10조에 따라', '제10조(해지)에 따라') is a reference, not a heading.
 */

export type LineClass =
  | { kind: 'article'; index: number; sub_index: number | null; title: string; display: string; rest: string }
  | { kind: 'exhibit'; index: number | null; title: string; display: string; rest: string }
  | { kind: 'chapter' }
  | { kind: 'break' }
  | { kind: 'malformed'; reason: string }
  | { kind: 'text' };

const CLOSERS: Record<string, string> = {
  '(': ')',
  '（': '）',
  '【': '】',
  '[': ']',
  '<': '>',
  '〈': '〉',
  '《': '》',
  '「': '」',
  '『': '』',
};

const ARTICLE_RE = /^([【[]\s*)?제\s*(\d{1,4})\s*조(?:\s*의\s*(\d{1,3}))?/;
const EXHIBIT_RE = /^([【[]\s*)?별지(?:\s*(?:제\s*)?(\d{1,3})(?:\s*호)?)?(?:\s*서식)?/;
const CHAPTER_RE = /^제\s*\d{1,3}\s*[장절관편](?:\s|$)/;
const RULE_RE = /^(?:-{3,}|\*{3,}|_{3,})$/;
const DATE_RE = /^\d{4}\s*(?:년|[.\-/])\s*\d{1,2}\s*(?:월|[.\-/])\s*\d{1,2}\s*(?:일)?\.?$/;
/** Words that continue a sentence: a bracketed title followed by one of these is a reference, not a heading. */
const CONTINUATION_RE = /^\s+(?:및|또는|내지|과|와|에|의|을|를|은|는|가|에서|에게|에도|으로|로|부터|까지|등|중)(?:\s|$)/;
const SEPARATOR_RE = /^\s*[:.\-–—·]\s*/;

interface Undecorated {
  /** The heading candidate: the line without `#` markers, or the bold part of a bold line. */
  core: string;
  /** Text after a closing bold marker (`**제1조 (목적)** 본문` → '본문'). */
  after: string;
  markdownHeading: boolean;
  bold: boolean;
}

function undecorate(line: string): Undecorated {
  let s = line.trim();
  let markdownHeading = false;
  const hashes = /^#{1,6}\s+/.exec(s);
  if (hashes) {
    s = s
      .slice(hashes[0].length)
      .replace(/\s+#+$/, '')
      .trim();
    markdownHeading = true;
  }
  const bold = /^(\*\*|__)(.+?)\1(.*)$/.exec(s);
  if (bold) return { core: bold[2].trim(), after: bold[3].trim(), markdownHeading, bold: true };
  return { core: s, after: '', markdownHeading, bold: false };
}

/** Index of the bracket closing `text[0]`, honouring nesting of the same bracket kind; -1 when unclosed. */
function findClose(text: string): number {
  const open = text[0];
  const close = CLOSERS[open];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === open && open !== close) depth++;
    else if (text[i] === close) {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

type TitleRead = { title: string; body: string } | { malformed: string } | null;

/**
 * Reads the title after a heading number. `rest` is what follows the number (and its closing bracket, if any).
 * Bare (unbracketed) titles are only accepted when `bare` is set, i.e. for decorated or bracketed headings.
 */
function readTitle(rest: string, bare: boolean, glued: boolean): TitleRead {
  if (rest.trim() === '') return { title: '', body: '' };
  const spaced = /^\s/.test(rest);
  const t = rest.trimStart();
  if (CLOSERS[t[0]]) {
    const end = findClose(t);
    if (end < 0) return { malformed: `unclosed title bracket '${t[0]}'` };
    const after = t.slice(end + 1);
    if (after !== '' && !/^\s/.test(after)) return null; // '제10조(계약의 해지)에 따라' is a reference
    if (CONTINUATION_RE.test(after)) return null; // '제10조 (계약의 해지) 및 제11조에 따라' is one too
    return { title: t.slice(1, end).trim(), body: after.trim() };
  }
  const sep = SEPARATOR_RE.exec(rest);
  if (!bare || (!spaced && !sep && !glued)) return null;
  return { title: rest.slice(sep ? sep[0].length : 0).trim(), body: '' };
}

/** A sentence rather than a title: plain-text exhibit lines like '별지 1 기재 용역을 수행한다.' are not headings. */
function looksLikeSentence(s: string): boolean {
  return s.length > 40 || /(?:다|함|음)\.?$/.test(s) || /[,，]/.test(s);
}

function classifyArticle(u: Undecorated, m: RegExpExecArray, display: string): LineClass {
  let rest = u.core.slice(m[0].length);
  const bracketed = m[1] !== undefined;
  if (bracketed) {
    const close = /^\s*[】\]]/.exec(rest);
    if (!close) return { kind: 'text' };
    rest = rest.slice(close[0].length);
  }
  const decorated = u.markdownHeading || u.bold;
  const read = readTitle(rest, decorated || bracketed, bracketed);
  if (read === null) return { kind: 'text' };
  const number = `제${m[2]}조${m[3] ? `의${m[3]}` : ''}`;
  if ('malformed' in read) {
    return { kind: 'malformed', reason: `${read.malformed} in heading '${u.core}': expected '${number} (제목)'` };
  }
  const body = [read.body, u.after].filter((s) => s !== '').join(' ');
  return {
    kind: 'article',
    index: Number(m[2]),
    sub_index: m[3] ? Number(m[3]) : null,
    title: read.title,
    display,
    rest: body,
  };
}

function classifyExhibit(u: Undecorated, m: RegExpExecArray, display: string): LineClass {
  let rest = u.core.slice(m[0].length);
  const bracketed = m[1] !== undefined;
  if (bracketed) {
    const close = /^\s*[】\]]/.exec(rest);
    if (!close) return { kind: 'text' };
    rest = rest.slice(close[0].length);
  }
  const decorated = u.markdownHeading || u.bold;
  const numbered = m[2] !== undefined;
  if (!numbered && !bracketed && !decorated && rest.trim() !== '' && !CLOSERS[rest.trimStart()[0]]) {
    return { kind: 'text' }; // '별지 참조', '별지와 같이'
  }
  const read = readTitle(rest, true, bracketed);
  if (read === null || 'malformed' in read) return { kind: 'text' };
  const bareTitle = !CLOSERS[rest.trimStart()[0] ?? ''];
  if (bareTitle && !decorated && !bracketed && looksLikeSentence(read.title)) return { kind: 'text' };
  const body = [read.body, u.after].filter((s) => s !== '').join(' ');
  return { kind: 'exhibit', index: numbered ? Number(m[2]) : null, title: read.title, display, rest: body };
}

/** Classifies one line of a contract. */
export function classifyLine(line: string): LineClass {
  const trimmed = line.trim();
  if (trimmed === '') return { kind: 'text' };
  if (RULE_RE.test(trimmed)) return { kind: 'break' };
  const u = undecorate(trimmed);
  const display = u.after === '' ? u.core : `${u.core} ${u.after}`;
  const article = ARTICLE_RE.exec(u.core);
  if (article) {
    const c = classifyArticle(u, article, display);
    if (c.kind !== 'text') return c;
  }
  const exhibit = EXHIBIT_RE.exec(u.core);
  if (exhibit) {
    const c = classifyExhibit(u, exhibit, display);
    if (c.kind !== 'text') return c;
  }
  if (CHAPTER_RE.test(u.core)) return { kind: 'chapter' };
  if (u.markdownHeading || DATE_RE.test(display)) return { kind: 'break' };
  return { kind: 'text' };
}
