import { extractArticleRefs } from '../../knowledge/contracts/article-matching';
import { searchTerms } from '../../knowledge/documents/search-query';

/** Seed 000's LightweightClassifier: pattern rules that decide before any model is asked. */
const GREETING = /^\s*(안녕|반가|고마|감사|수고|hi\b|hello\b|thanks?\b|thank you)[\s\S]{0,20}$/i;
export const TOPIC_WORDS =
  /(해지|해제|종료|손해\s*배상|배상|위약|비밀\s*유지|기밀|대금|지급|계약\s*금액|금액|기간|갱신|분쟁|관할|검수|하도급|양도|지식\s*재산|저작권|불가항력|책임|의무|보증|통지|범위)/;

export function needsToolsByRules(question: string): { needs_tools: boolean; reasoning: string } | null {
  if (GREETING.test(question)) return { needs_tools: false, reasoning: 'greeting or thanks' };
  const refs = extractArticleRefs(question);
  if (refs.articles.length || refs.exhibits.length) return { needs_tools: true, reasoning: 'names an article or exhibit' };
  if (TOPIC_WORDS.test(question)) return { needs_tools: true, reasoning: 'asks about a contract topic' };
  return null;
}

/** The search topics of a question: its terms as one topic (the seed's `[{topic_name, queries}]` shape). */
export function topicsOf(question: string): Array<{ topic_name: string; queries: string[] }> {
  const terms = searchTerms(question).filter((t) => t.length > 1);
  const topic = question.match(TOPIC_WORDS)?.[0] ?? terms[0] ?? question;
  return [{ topic_name: topic, queries: [terms.join(' ') || question] }];
}
