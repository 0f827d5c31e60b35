/** The supervisor's rule fast path for the first delegation; null lets the model decide. */
const RULES: Array<[RegExp, string]> = [
  [
    /(정책|규정|사내|회사\s*(문서|규칙)|매뉴얼|핸드북|지식\s*베이스|polic(?:y|ies)|handbook|company (rules|documents?)|knowledge base|internal doc)/i,
    'rag_agent',
  ],
  [
    /(날씨|weather|뉴스|news|위키|wikipedia|웹\s*검색|web search|search the web|인터넷|internet|최신|latest|환율|exchange rate)/i,
    'external_agent',
  ],
  [
    /(계산|calculate|[\d.]+\s*[+\-*/×÷^%]\s*[\d.(]|\d\s*(times|plus|minus|divided by)\s*\d|파일|file|계약서|조항|제\s*\d+\s*조|contract|\b(article|clause)\s+\d)/i,
    'internal_agent',
  ],
];

export function delegateByRules(message: string, available: string[]): string | null {
  const hits = RULES.filter(([p, agent]) => p.test(message) && available.includes(agent)).map(([, a]) => a);
  return new Set(hits).size === 1 ? hits[0] : null;
}
