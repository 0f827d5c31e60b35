/** The router's rule fast path: a route when the words are unambiguous, null when the model should decide. */
const DOCUMENT_WORDS =
  /(정책|규정|규칙|지침|매뉴얼|사내|회사|복지|휴가|연차|문서|핸드북|policy|policies|handbook|guideline|manual|internal doc)/i;
const AGENT_WORDS =
  /^\s*(안녕|반가|고마|감사|hi\b|hello\b|thanks?\b)|[\d.]+\s*[+\-*/×÷^%]\s*[\d.(]|계산|몇\s*시|날씨|weather|위키|wikipedia|코드|python|파이썬|내 이름|아까|전에 말|뭐라고 했|기억(해|하니|나)/i;

export function routeByRules(message: string, hasDocuments: boolean): { route: 'rag' | 'agent'; reason: string } | null {
  if (AGENT_WORDS.test(message)) return { route: 'agent', reason: 'conversation, calculation or tool question' };
  if (!hasDocuments) return { route: 'agent', reason: 'the knowledge base is empty' };
  if (DOCUMENT_WORDS.test(message)) return { route: 'rag', reason: 'asks about stored documents' };
  return null;
}
