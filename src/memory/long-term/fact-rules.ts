import { detectLanguage, type Language } from '../../core/language';

/** What a remembered fact is about; the single-valued kinds keep one fact each (a restated one replaces it). */
export const FACT_KINDS = ['allergy', 'birthday', 'name', 'diet', 'home', 'job', 'family', 'preference', 'note'] as const;
export type FactKind = (typeof FACT_KINDS)[number];

/** Kinds a user has one of: the newest statement replaces the older one (a new birthday, a move). */
export const SINGLE_VALUED: ReadonlySet<FactKind> = new Set(['birthday', 'name', 'home', 'job']);

/** A durable fact about the user, as stated (`text`: the user's own words, or what "remember that …" asked for). */
export interface StatedFact {
  kind: FactKind;
  text: string;
  lang: Language;
}

/** The rules' verdict on a message: the facts they recognised, and the first-person statements they could not classify. */
export interface FactScan {
  facts: StatedFact[];
  /** self-descriptions no rule recognises (e.g. "I'm Jin", "저는 아침형 인간이에요"): only these may go to the model */
  ambiguous: string[];
}

const MAX_FACT_CHARS = 300;

const QUESTION =
  /\?|？|^\s*(what|who|whom|whose|when|where|why|how|which|do|does|did|is|are|am|was|were|can|could|would|should|will|shall|may|have|has)\b|뭐|뭔|무엇|언제|어디|누구|몇|왜|어떻게|어느|(니|냐|까|나요|가요|는지|을까|ㄹ까|알아|기억나)\s*[.!~]*$/i;
const HYPOTHETICAL =
  /^\s*(if|suppose|supposing|imagine|what if|let's say|lets say|pretend|hypothetically|say)\b|\bif i\b|\bi would\b|\bi'd\b|만약|만일|가정|상상|[다라]면\s*[,，]/i;
const TEMPORARY =
  /\b(today|tonight|right now|at the moment|this (morning|afternoon|evening|week|weekend)|tomorrow|yesterday)\b|\b(i'?m|i am|feel|feeling)\s+(so\s+|really\s+|very\s+|a bit\s+|kind of\s+)?(tired|sleepy|hungry|thirsty|bored|sick|busy|stressed|sad|upset|angry|cold|hot|late)\b|오늘|지금|방금|이따|내일|어제|이번\s*주|요즘|피곤|졸려|졸리|배고|심심|아파/i;
const FIRST_PERSON = /\b(i|i'm|im|i've|i'd|my|me|mine)\b|나는|난\s|내가|내\s|제가|저는|전\s|제\s|저의|나의|우리/i;
/** a request or a task, not a statement about oneself */
const REQUEST =
  /\b(help|please|can you|could you|would you|tell me|show me|write|explain|give me|find|search|calculate|need|want|question|problem|error|bug)\b|해\s*줘|해\s*주세요|알려|도와|줘|주세요|하자|할래|싶어|싶다|싶어요|계산|검색|찾아/i;

/** "remember that …", "기억해 줘": the user asks to keep the rest (a note, unless a rule names its kind) */
const EXPLICIT_EN = /^\s*(?:please\s+)?(?:remember|note|keep in mind)\s*(?:that\s+|:\s*)?(.+?)\s*[.!]*$/i;
const EXPLICIT_KO =
  /^(.+?)\s*(?:라고|다고|이라고|것을|걸|을|를)?\s*(?:기억해\s*줘|기억해\s*주세요|기억해\s*둬|기억해\s*두세요|기억하세요|잊지\s*마|잊지\s*마세요)\s*[.!~]*$/;

/** Each kind's statements, English then Korean (first person is part of every pattern). */
const KIND_RULES: Array<[FactKind, RegExp]> = [
  [
    'allergy',
    /\b(i'?m|i am)\s+(severely\s+|very\s+)?allergic\b|\bi have (an?|a severe)\s+.*\ballerg|\bmy allerg(y|ies)\b|알레르기|알러지/i,
  ],
  ['birthday', /\bmy (birthday|bday|date of birth)\b|\bi was born (on|in)\b|생일|태어났/i],
  ['name', /\bmy name('s| is)\b|\bcall me\b|\bi'?m called\b|\bi am called\b|이름은|이름이|(?:라고|이라고)\s*불러/i],
  [
    'diet',
    /\b(i'?m|i am)\s+(a\s+)?(vegetarian|vegan|pescatarian|keto|gluten[- ]free|lactose[- ]intolerant|halal|kosher)\b|\bi (don'?t|do not|never|can'?t|cannot) eat\b|채식|비건|(?:안|못)\s*먹|먹지\s*(않|못)/i,
  ],
  [
    'home',
    /\bi live (in|at|near)\b|\bi('ve)? moved to\b|\bmy (home|hometown|address) is\b|\bi'?m from\b|\bi am from\b|(?:에|에서)\s*살(아|고|아요|고 있|습니다)|사는 곳|거주|출신/i,
  ],
  [
    'job',
    /\bi work (as|at|for|in)\b|\bmy (job|profession|occupation) is\b|\b(i'?m|i am) an? (software |senior |junior )?(engineer|developer|programmer|teacher|doctor|nurse|student|designer|lawyer|manager|accountant|researcher|scientist|chef|writer)\b|직업|(?:회사|학교)에\s*다녀|에서\s*일해|근무|(?:개발자|엔지니어|교사|선생님|의사|간호사|학생|디자이너|변호사)(?:야|예요|이에요|입니다|다)/i,
  ],
  [
    'family',
    /\bmy (wife|husband|partner|son|daughter|kids?|children|child|mother|mom|father|dad|brother|sister|dog|cat)('s| is| are| was)\b|\bi have (a|an|one|two|three|\d+) (kids?|children|sons?|daughters?|brothers?|sisters?|dogs?|cats?)\b|아내|남편|아들|딸|아이가|엄마|아빠|어머니|아버지|형은|누나|언니|오빠|동생|강아지|고양이/i,
  ],
  [
    'preference',
    /\bi (really |absolutely )?(love|like|prefer|hate|dislike|enjoy)\b|\bmy fav(ou)?rite\b|좋아해|좋아합니다|좋아한다|좋아하는|싫어해|싫어합니다|선호/i,
  ],
];

/** The sentences of a message (split after . ! ? and at line breaks). */
export function sentencesOf(message: string): string[] {
  return message
    .split(/(?<=[.!?。？！])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The kind a first-person statement names, when a rule recognises it. */
function kindOf(sentence: string): FactKind | null {
  for (const [kind, pattern] of KIND_RULES) if (pattern.test(sentence)) return kind;
  return null;
}

/** A statement a rule cannot classify but that describes the user ("I'm …", "My … is …", "저는 …이에요"). */
const SELF_DESCRIPTION =
  /^\s*(i'?m|i am|i have|i've got|my\s+\w+(\s+\w+)?\s+(is|are|was))\b|^(저는|나는|난|전|제\s*\S+[은는]|내\s*\S+[은는]).*(이야|야|예요|이에요|입니다|이다|있어|있어요|있습니다|없어|없어요|해요|해|했어|합니다)\s*[.!~]*$/i;

const clip = (text: string) => text.trim().slice(0, MAX_FACT_CHARS);

/** One sentence: a fact, an ambiguous self-description, or nothing (a question, a hypothesis, a passing state, chat). */
function scanSentence(sentence: string): { fact?: StatedFact; ambiguous?: string } {
  if (QUESTION.test(sentence)) return {};
  const lang = detectLanguage(sentence, 'en');
  const explicit = sentence.match(EXPLICIT_EN)?.[1] ?? sentence.match(EXPLICIT_KO)?.[1];
  if (explicit && explicit.trim().length > 1) {
    const text = clip(explicit);
    return { fact: { kind: FIRST_PERSON.test(text) ? (kindOf(text) ?? 'note') : 'note', text, lang } };
  }
  if (!FIRST_PERSON.test(sentence) || HYPOTHETICAL.test(sentence) || TEMPORARY.test(sentence)) return {};
  const kind = kindOf(sentence);
  if (kind) return { fact: { kind, text: clip(sentence), lang } };
  if (!REQUEST.test(sentence) && SELF_DESCRIPTION.test(sentence)) return { ambiguous: clip(sentence) };
  return {};
}

/**
 * The rule fast path of long-term memory: the durable facts a message states about its user (allergies, birthday,
 * name, diet, where they live, job, family, preferences, "remember that …" / "…기억해 줘"), in English and Korean.
 * Questions, hypotheticals and passing states ("I'm tired today", "오늘 피곤해") are never facts; a first-person
 * self-description the rules cannot classify is returned as `ambiguous` for one model decision.
 */
export function scanForFacts(message: string): FactScan {
  const facts: StatedFact[] = [];
  const ambiguous: string[] = [];
  for (const sentence of sentencesOf(message)) {
    const { fact, ambiguous: unsure } = scanSentence(sentence);
    if (fact) facts.push(fact);
    if (unsure) ambiguous.push(unsure);
  }
  return { facts, ambiguous };
}
