/**
 * Risk level of every tool, by name: what the tool guard (tool-guard.ts) enforces outside the model.
 *
 * - `high`: the call can do harm or leak data if a prompt injection chose it — code execution
 *   (`python_repl`), reading the server's files (`read_file`), or sending a free-text query chosen by the
 *   model to a third party (`web_search`, `search_wikipedia`: the query can carry data out of the turn).
 *   In a turn whose context holds retrieved or tool-produced text, a high-risk call runs only when the
 *   user's own message asked for it (`userAsked`), or when an operator approved it (TOOL_APPROVAL).
 * - `low`: computation and read-only lookups in this service's own data (calculator, date/time, the
 *   knowledge base, contract tools, summarize) and `get_weather`: its argument is a place name sent to the
 *   operator-configured weather API, which returns structured numbers — no file, code or free-form query.
 *
 * `untrustedOutput`: the tool's output is text from outside the conversation (documents, contracts, web
 * pages, files, program output). Such output is wrapped as data (untrusted.ts) and taints the turn.
 * A tool missing from this table is treated as high risk with untrusted output (fail closed).
 */
export type ToolRisk = 'low' | 'high';

export interface ToolPolicy {
  risk: ToolRisk;
  untrustedOutput: boolean;
  /** High risk only: whether the user's own message asked for this call. */
  userAsked?: (message: string, args: Record<string, unknown>) => boolean;
  /**
   * The call only computes or reads this service's own data: running it again after a crash has no effect to
   * duplicate and costs nothing outside, so it is not written to the run's tool ledger (one statement less).
   */
  readOnly?: boolean;
}

const PYTHON =
  /python|파이썬|\bpy\b|코드\s*(를|을)?\s*(실행|돌려)|(run|execute|exec)\s+(this\s+|the\s+|some\s+|my\s+)?(code|script)|스크립트\s*(를|을)?\s*실행/i;
const FILE_WORDS = /파일|file|read|읽|열어|cat\b|내용/i;
const WEB_SEARCH = /검색|search|찾아|look\s*up|google|구글|인터넷|internet|웹|\bweb\b|뉴스|news/i;
const WIKIPEDIA = /위키|wiki|백과|검색|search|찾아|look\s*up/i;

/** read_file: the message talks about files and names the path asked for (or its file name). */
function askedForFile(message: string, args: Record<string, unknown>): boolean {
  const path = typeof args.path === 'string' ? args.path.trim() : '';
  if (!path || !FILE_WORDS.test(message)) return false;
  const base = path.split(/[\\/]/).filter(Boolean).pop() ?? '';
  const text = message.toLowerCase();
  return text.includes(path.toLowerCase()) || (base.length > 0 && text.includes(base.toLowerCase()));
}

const low = (untrustedOutput: boolean, readOnly = false): ToolPolicy => ({ risk: 'low', untrustedOutput, readOnly });

export const TOOL_POLICIES: Readonly<Record<string, ToolPolicy>> = {
  calculator: low(false, true),
  get_current_datetime: low(false, true),
  summarize: low(true), // a model call: recorded, so a resumed run does not pay for it twice
  search_knowledge_base: low(true, true),
  get_weather: low(true), // a call to an outside API: recorded
  get_contract_structure: low(true, true),
  hybrid_search: low(true, true),
  get_article_by_index: low(true, true),
  get_article_by_title: low(true, true),
  lookup_standard_contract: low(true, true),
  python_repl: { risk: 'high', untrustedOutput: true, userAsked: (m) => PYTHON.test(m) },
  read_file: { risk: 'high', untrustedOutput: true, userAsked: askedForFile },
  web_search: { risk: 'high', untrustedOutput: true, userAsked: (m) => WEB_SEARCH.test(m) },
  search_wikipedia: { risk: 'high', untrustedOutput: true, userAsked: (m) => WIKIPEDIA.test(m) },
};

const UNKNOWN: ToolPolicy = { risk: 'high', untrustedOutput: true };

export function toolPolicy(name: string): ToolPolicy {
  return Object.hasOwn(TOOL_POLICIES, name) ? TOOL_POLICIES[name] : UNKNOWN;
}

export function toolRisk(name: string): ToolRisk {
  return toolPolicy(name).risk;
}
