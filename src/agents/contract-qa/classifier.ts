import { extractArticleRefs } from '../../knowledge/contracts/article-matching';
import { relatedTopics, topicsOfQuestion } from '../../knowledge/contracts/contract-topics';
import { searchTerms } from '../../knowledge/documents/search-query';

/** Seed 000's LightweightClassifier: pattern rules that decide before any model is asked. */
const GREETING = /^\s*(안녕|반가|고마|감사|수고|hi\b|hello\b|hey\b|thanks?\b|thank you|good (morning|afternoon|evening))[\s\S]{0,20}$/i;
/** English topic words of a contract question (seed 000's topic rules, in English). */
export const ENGLISH_TOPIC_WORDS =
  /\b(terminat\w*|cancel\w*|breach\w*|damages?|liabilit\w*|penalt\w*|fees?|payments?|pay|price|invoic\w*|confidential\w*|non-disclosure|disputes?|jurisdiction|governing law|term|duration|renew\w*|acceptance|subcontract\w*|assign\w*|intellectual property|copyright|force majeure|obligations?|warrant\w*|notices?|scope|contract|agreement|clauses?)\b/i;
/** English article / exhibit references: 'Article 5', 'Section 3.2', 'Clause 7', 'Schedule 2', 'Exhibit A', 'Annex I'. */
export const ENGLISH_REFERENCE = /\b(?:article|section|clause|schedule|exhibit|annex|appendix)\s+(?:\d|[A-Z]\b|[IVX]+\b)/i;
export const TOPIC_WORDS =
  /(해지|해제|종료|손해\s*배상|배상|위약|비밀\s*유지|기밀|대금|지급|계약\s*금액|금액|기간|갱신|분쟁|관할|검수|하도급|양도|지식\s*재산|저작권|불가항력|책임|의무|보증|통지|범위)/;

export function needsToolsByRules(question: string): { needs_tools: boolean; reasoning: string } | null {
  if (GREETING.test(question)) return { needs_tools: false, reasoning: 'greeting or thanks' };
  const refs = extractArticleRefs(question);
  if (refs.articles.length || refs.exhibits.length) return { needs_tools: true, reasoning: 'names an article or exhibit' };
  if (TOPIC_WORDS.test(question) || ENGLISH_TOPIC_WORDS.test(question) || topicsOfQuestion(question).length)
    return { needs_tools: true, reasoning: 'asks about a contract topic' };
  return null;
}

/**
 * The search topics of a question (the seed's `[{topic_name, queries}]` shape): each known contract topic it asks
 * about and the topics related to them, searched by the words their clauses use; else its terms as one topic.
 */
export function topicsOf(question: string): Array<{ topic_name: string; queries: string[] }> {
  const terms = searchTerms(question).filter((t) => t.length > 1);
  const known = topicsOfQuestion(question);
  if (known.length) {
    // the question's own words too: trigram similarity finds '계약기간' for '기간', which a prefix query does not
    const own = terms.join(' ');
    return [...known, ...relatedTopics(known)].map((t) => ({
      topic_name: t.label.en,
      queries: own ? [t.searchWords, own] : [t.searchWords],
    }));
  }
  const topic = question.match(TOPIC_WORDS)?.[0] ?? question.match(ENGLISH_TOPIC_WORDS)?.[0] ?? terms[0] ?? question;
  return [{ topic_name: topic, queries: [terms.join(' ') || question] }];
}
