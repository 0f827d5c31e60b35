import { scanForFacts } from '../../memory/long-term/fact-rules';

/** The router's rule fast path: a route when the words are unambiguous, null when the model should decide. */
const DOCUMENT_WORDS =
  /(정책|규정|규칙|지침|매뉴얼|사내|회사|복지|휴가|연차|문서|핸드북|\bpolic(?:y|ies)\b|handbook|guidelines?|\bmanual\b|internal doc|company|\bleave\b|vacation|holidays?|annual leave|benefits?|expenses?|business trip|travel allowance|per diem)/i;
const AGENT_WORDS =
  /^\s*(안녕|반가|고마|감사|hi\b|hello\b|hey\b|thanks?\b|thank you|good (morning|afternoon|evening))|[\d.]+\s*[+\-*/×÷^%]\s*[\d.(]|\d\s*(times|plus|minus|divided by)\s*\d|계산|calculate|몇\s*시|what time|날씨|weather|위키|wikipedia|코드|\bcode\b|python|파이썬|내 이름|my name|아까|전에 말|뭐라고 했|what did i (say|tell)|기억(해|하니|나)|remember/i;

/** The route by rules alone (greetings, tools, the user's own facts → agent; document words → rag), else null. */
export function routeByRules(message: string, hasDocuments: boolean): { route: 'rag' | 'agent'; reason: string } | null {
  if (AGENT_WORDS.test(message)) return { route: 'agent', reason: 'conversation, calculation or tool question' };
  if (scanForFacts(message).facts.length > 0) return { route: 'agent', reason: 'states a fact about the user' };
  if (!hasDocuments) return { route: 'agent', reason: 'the knowledge base is empty' };
  if (DOCUMENT_WORDS.test(message)) return { route: 'rag', reason: 'asks about stored documents' };
  return null;
}
