import { runContextOf } from './run-context';

/**
 * The language of a user's message, told by its writing system: Hangul → `ko`, kana → `ja`, Han → `zh`,
 * Cyrillic → `ru`, Arabic → `ar`, Hebrew → `he`, Greek → `el`, Thai → `th`, Devanagari → `hi`, Latin → `en`.
 * A message with no letters (`12 * 7`) takes the fallback (the DEFAULT_LANGUAGE setting). One syllable of
 * Hangul or one Han character carries about as much as a three-letter word, so those scripts count three times
 * their characters: "Summarise 제5조" is English, "제5조 termination 조항 요약해줘" Korean.
 */
export const LANGUAGES = ['en', 'ko', 'ja', 'zh', 'ru', 'ar', 'he', 'el', 'th', 'hi'] as const;
export type Language = (typeof LANGUAGES)[number];

const SCRIPTS: Array<{ language: Language; pattern: RegExp; weight: number }> = [
  { language: 'ko', pattern: /\p{Script=Hangul}/gu, weight: 3 },
  { language: 'ja', pattern: /[\p{Script=Hiragana}\p{Script=Katakana}]/gu, weight: 3 },
  { language: 'zh', pattern: /\p{Script=Han}/gu, weight: 3 },
  { language: 'ru', pattern: /\p{Script=Cyrillic}/gu, weight: 1 },
  { language: 'ar', pattern: /\p{Script=Arabic}/gu, weight: 1 },
  { language: 'he', pattern: /\p{Script=Hebrew}/gu, weight: 1 },
  { language: 'el', pattern: /\p{Script=Greek}/gu, weight: 1 },
  { language: 'th', pattern: /\p{Script=Thai}/gu, weight: 1 },
  { language: 'hi', pattern: /\p{Script=Devanagari}/gu, weight: 1 },
  { language: 'en', pattern: /\p{Script=Latin}/gu, weight: 1 },
];

const NAMES: Record<Language, string> = {
  en: 'English',
  ko: 'Korean',
  ja: 'Japanese',
  zh: 'Chinese',
  ru: 'Russian',
  ar: 'Arabic',
  he: 'Hebrew',
  el: 'Greek',
  th: 'Thai',
  hi: 'Hindi',
};

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/** The language of `text` by its dominant script; `fallback` when it has no letters. */
export function detectLanguage(text: string | null | undefined, fallback: Language = 'en'): Language {
  const scores = new Map<Language, number>();
  for (const { language, pattern, weight } of SCRIPTS) {
    const count = (text ?? '').match(pattern)?.length ?? 0;
    if (count) scores.set(language, count * weight);
  }
  // Japanese writes kanji beside its kana: Han counts as Japanese once any kana is present
  if (scores.has('ja') && scores.has('zh')) {
    scores.set('ja', (scores.get('ja') ?? 0) + (scores.get('zh') ?? 0));
    scores.delete('zh');
  }
  let best: Language = fallback;
  let top = 0;
  for (const [language, score] of scores) {
    if (score > top) [best, top] = [language, score];
  }
  return best;
}

/** The language's English name, for prompts ("Answer in Korean"). */
export function languageName(language: Language): string {
  return NAMES[language];
}

/** A table of user-facing texts: English and Korean always, other languages where written (else English). */
export type Messages<T> = { en: T; ko: T } & Partial<Record<Language, T>>;

/** The texts of `table` in `language`, English when the table has none in it. */
export function localize<T>(table: Messages<T>, language: Language): T {
  return table[language] ?? table.en;
}

/** The line every answering prompt ends with, so the model answers in the user's language. */
export function answerLanguageInstruction(language: Language): string {
  return `Answer in ${languageName(language)}, the language of the user's message.`;
}

/**
 * The language a node answers in: the run's (detected by the run driver from the turn's message, with the
 * DEFAULT_LANGUAGE fallback), else the language of `text` when the graph runs outside the service.
 */
export function turnLanguage(config: { configurable?: Record<string, unknown> } | undefined, text: string | null | undefined): Language {
  const language = runContextOf(config)?.language;
  return isLanguage(language) ? language : detectLanguage(text);
}
