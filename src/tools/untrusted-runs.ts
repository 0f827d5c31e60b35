/**
 * Character runs of untrusted text, for the network-argument check of the tool guard (tool-consent.ts): a consented
 * network tool must not send out a run of characters that came from retrieved text or tool output and not from the
 * user. Words are not compared: spacing letters (`K R A K E N 7 7`), hyphens, full-width forms or zero-width
 * characters would split them. Both sides are normalised the same way, then compared as runs of MIN_RUN characters.
 *
 * Korean and English alike: a Hangul syllable is compared as its letters (jamo), so a run of MIN_RUN characters is
 * about two syllables in Korean and four letters in English, and a word typed as separate jamo (`ㅂㅣㅁㅣㄹ`) or a
 * syllable split into a syllable and a letter matches the composed word.
 */

/** Runs this long (in normalised characters) count; shorter ones carry too little to tell where they came from. */
export const MIN_RUN = 4;

// letters that render as nothing: Hangul fillers (half-width, compatibility, choseong / jungseong fillers)
const FILLERS = new Set(['\u115F', '\u1160', '\u3164', '\uFFA0']);
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;
// a final consonant (jongseong) reads as the same letter(s) as an initial one (choseong): 각 = 가 + ㄱ
const FINALS = 'ᆨᆩᆪᆫᆬᆭᆮᆯᆰᆱᆲᆳᆴᆵᆶᆷᆸᆹᆺᆻᆼᆽᆾᆿᇀᇁᇂ';
const INITIALS = [
  'ᄀ',
  'ᄁ',
  'ᄀᄉ',
  'ᄂ',
  'ᄂᄌ',
  'ᄂᄒ',
  'ᄃ',
  'ᄅ',
  'ᄅᄀ',
  'ᄅᄆ',
  'ᄅᄇ',
  'ᄅᄉ',
  'ᄅᄐ',
  'ᄅᄑ',
  'ᄅᄒ',
  'ᄆ',
  'ᄇ',
  'ᄇᄉ',
  'ᄉ',
  'ᄊ',
  'ᄋ',
  'ᄌ',
  'ᄎ',
  'ᄏ',
  'ᄐ',
  'ᄑ',
  'ᄒ',
];
// Cyrillic and Greek letters that look like Latin ones (a model told to "write it in Cyrillic" keeps the run)
const LOOK_ALIKES = new Map([...'аеорсухіјѕһԁԛԝӏкмтвαοινκρτυχεβ'].map((c, i) => [c, 'aeopcyxijshdqwlkmtbaoivkptuxeb'[i]]));

/** One character of normalised text and the index in the original text of the character it came from. */
export interface NormalisedChar {
  c: string;
  at: number;
}

/**
 * The text as the check compares it, character by character (so a run can be traced back to the original): NFKD
 * (full-width, circled and mathematical letters become plain ones, Hangul syllables their letters, accents separate
 * marks), lower case, a final consonant as the initial one, look-alike Cyrillic and Greek letters as Latin ones, and
 * only letters and digits kept (no whitespace, punctuation, symbols, marks, zero-width or filler characters).
 */
export function normalisedChars(text: string): NormalisedChar[] {
  const out: NormalisedChar[] = [];
  let at = 0;
  for (const cp of text) {
    for (const c of fold(cp)) out.push({ c, at });
    at += cp.length;
  }
  return out;
}

export function normaliseForRuns(text: string): string {
  let out = '';
  for (const cp of text) out += fold(cp);
  return out;
}

/** Folded non-ASCII characters, remembered (text repeats its characters; the table stays small). */
const FOLDED = new Map<string, string>();
const MAX_FOLDED = 50_000;

/** One code point as compared: '' when it is dropped, one or more characters otherwise. */
function fold(cp: string): string {
  const code = cp.charCodeAt(0);
  if (code < 0x80) {
    // ASCII: no decomposition to do
    if ((code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x7a)) return cp;
    return code >= 0x41 && code <= 0x5a ? String.fromCharCode(code + 32) : '';
  }
  const known = FOLDED.get(cp);
  if (known !== undefined) return known;
  let out = '';
  for (const d of cp.normalize('NFKD').toLowerCase()) {
    if (FILLERS.has(d) || !LETTER_OR_DIGIT.test(d)) continue;
    const final = FINALS.indexOf(d);
    out += final >= 0 ? INITIALS[final] : (LOOK_ALIKES.get(d) ?? d);
  }
  if (FOLDED.size < MAX_FOLDED) FOLDED.set(cp, out);
  return out;
}

/** Every run of MIN_RUN characters of normalised text, in order (a shorter text has none). */
export function runsOf(normalised: string): string[] {
  const chars = [...normalised];
  const out: string[] = [];
  for (let i = 0; i + MIN_RUN <= chars.length; i++) out.push(chars.slice(i, i + MIN_RUN).join(''));
  return out;
}

/** Size of a digest: 2^20 bits (128 KiB), stored with the thread. */
export const DIGEST_BYTES = 1 << 17;
const DIGEST_BITS = DIGEST_BYTES * 8;
const HASHES = 4;
/**
 * Past this share of bits set, one run in ~80 that untrusted text never had would look as if it had (false
 * positives only ever refuse): the digest is then treated as full, and every run the user did not write is suspect.
 * About 100,000 characters of distinct untrusted text fill a digest this far.
 */
const FULL_AT = 1 / 3;

/**
 * A bounded digest of the runs of untrusted text (a Bloom filter): it answers "did untrusted text have this run?"
 * with no false negatives, in a fixed 128 KiB whatever the amount of text, merges by OR (a thread's digest is the
 * union of its turns') and keeps no text (what a document said cannot be read back from it).
 */
export class RunDigest {
  /** allocated with the first bit set: most threads never see untrusted text, and a turn builds one digest */
  private bits: Uint8Array | undefined;
  private set = 0;

  constructor(bytes?: Uint8Array | null) {
    if (bytes?.length === DIGEST_BYTES) this.merge(bytes);
  }

  /** Adds the text's runs; true when the digest changed (something to record). */
  add(text: string): boolean {
    let changed = false;
    const chars = [...normaliseForRuns(text)];
    for (let i = 0; i + MIN_RUN <= chars.length; i++) {
      for (const bit of bitsOf(chars, i)) changed = this.setBit(bit) || changed;
    }
    return changed;
  }

  has(run: string): boolean {
    const bits = this.bits;
    return bits !== undefined && bitsOf([...run], 0).every((bit) => (bits[bit >>> 3] & (1 << (bit & 7))) !== 0);
  }

  /** Too full to tell runs apart (see FULL_AT). */
  get full(): boolean {
    return this.set / DIGEST_BITS > FULL_AT;
  }

  get empty(): boolean {
    return this.set === 0;
  }

  merge(bytes: Uint8Array): void {
    for (let i = 0; i < DIGEST_BYTES && i < bytes.length; i++) {
      if (!bytes[i]) continue;
      const bits = (this.bits ??= new Uint8Array(DIGEST_BYTES));
      const added = bytes[i] & ~bits[i];
      if (!added) continue;
      bits[i] |= added;
      for (let b = added; b; b &= b - 1) this.set += 1;
    }
  }

  bytes(): Uint8Array {
    return this.bits ? this.bits.slice() : new Uint8Array(DIGEST_BYTES);
  }

  private setBit(bit: number): boolean {
    const bits = (this.bits ??= new Uint8Array(DIGEST_BYTES));
    const mask = 1 << (bit & 7);
    if (bits[bit >>> 3] & mask) return false;
    bits[bit >>> 3] |= mask;
    this.set += 1;
    return true;
  }
}

/** The digest's bits of the run of MIN_RUN characters at `from`: FNV-1a twice (two offsets), by double hashing. */
function bitsOf(chars: readonly string[], from: number): number[] {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ 0x5bd1e995;
  for (let j = from; j < from + MIN_RUN; j++) {
    const c = chars[j].codePointAt(0) ?? 0;
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x01000193) >>> 0;
  }
  h2 |= 1;
  const out: number[] = [];
  for (let k = 0; k < HASHES; k++) out.push((h1 + Math.imul(k, h2)) & (DIGEST_BITS - 1));
  return out;
}
