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

/**
 * The first delegation by the topic rules, when exactly one agent matches. A message that names another available
 * agent (`ask the peer when the contract renews`: a remote agent's name is often the user's only hint) is left to
 * the model: a topic word must not overrule the agent the user asked for. A name alone never delegates (a word
 * match must not send the user's text to a remote agent).
 */
export function delegateByRules(message: string, available: string[]): string | null {
  const hits = RULES.filter(([p, agent]) => p.test(message) && available.includes(agent)).map(([, a]) => a);
  if (new Set(hits).size !== 1) return null;
  const named = available.filter((a) => a !== hits[0] && mentions(message, a));
  return named.length ? null : hits[0];
}

/**
 * `name` as a word of `message`, ignoring case; `_` and `-` in the name also match a space. Only Latin letters and
 * digits end a word, so a Korean particle may follow (`peer에게`).
 */
function mentions(message: string, name: string): boolean {
  const pattern = escape(name).replace(/[_-]/g, '[ _-]');
  return new RegExp(`(?<![\\p{Script=Latin}\\p{N}_])${pattern}(?![\\p{Script=Latin}\\p{N}_])`, 'iu').test(message);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
