/** Korean particles and endings that follow a noun in questions ("정책이", "휴가는", "규정에서", "뭐야"). */
const PARTICLES =
  /(에서는|에서|으로는|으로|이라고|라고|이란|이야|에게|한테|까지|부터|이나|이랑|하고|은|는|이|가|을|를|의|에|로|와|과|도|만|야|요)$/;
const STOPWORDS = new Set([
  '뭐',
  '뭐야',
  '무엇',
  '어떻게',
  '알려줘',
  '알려',
  '주세요',
  '해줘',
  'what',
  'is',
  'the',
  'a',
  'an',
  'of',
  'how',
  'are',
  'do',
  'does',
  'tell',
  'me',
  'about',
  'can',
  'i',
  'we',
  'my',
  'our',
  'say',
  'says',
  'in',
  'on',
  'to',
  'for',
  'and',
  'or',
  'it',
  'please',
  'any',
  'this',
  'there',
  'when',
  'which',
]);

/** English endings dropped so that a prefix query finds the other forms: 'termination' → 'terminat' (terminate). */
const ENGLISH_ENDINGS = /(?:ations?|ions?|ing|ed|es|s)$/;

/** The search terms of a question: words without particles, stopwords dropped. */
export function searchTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const terms = words
    .filter((w) => !STOPWORDS.has(w))
    .map(stripParticle)
    .filter((w) => w.length > 0 && !STOPWORDS.has(w));
  return [...new Set(terms)];
}

/** "정책이" → "정책", but "휴가" stays: at least two syllables must remain. */
function stripParticle(word: string): string {
  if (/^[a-z]+$/.test(word)) return stemEnglish(word);
  if (!/[가-힣]/.test(word)) return word;
  const stripped = word.replace(PARTICLES, '');
  return stripped.length >= 2 ? stripped : word;
}

/** A `to_tsquery('simple', …)` expression: any term, as a prefix (Korean words carry endings in documents). */
export function prefixTsQuery(terms: string[]): string | null {
  const safe = terms.map((t) => t.replace(/[^\p{L}\p{N}]/gu, '')).filter(Boolean);
  return safe.length ? safe.map((t) => `${t}:*`).join(' | ') : null;
}

/** 'terminations' → 'termin', 'fees' → 'fee', 'payment' stays: at least four letters (three for a plural) remain. */
function stemEnglish(word: string): string {
  const stripped = word.replace(ENGLISH_ENDINGS, '');
  if (stripped.length >= 4) return stripped;
  return word.length > 3 && word.endsWith('s') ? word.slice(0, -1) : word;
}
