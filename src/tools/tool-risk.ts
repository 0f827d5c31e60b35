/**
 * Risk level of every tool, by name: what the tool guard (tool-guard.ts) enforces outside the model.
 *
 * - `high`: the call can do harm or leak data if a prompt injection chose it — code execution
 *   (`python_repl`), reading the server's files (`read_file`), or sending a free-text query chosen by the
 *   model to a third party (`web_search`, `search_wikipedia`: `network`, the query can carry data out).
 *   In a turn whose context holds retrieved or tool-produced text, a high-risk call runs only with consent
 *   no text can produce (tool-consent.ts): the request's `allow_tools`, the agent's or assistant's
 *   configuration, or an operator's approval (TOOL_APPROVAL, TOOL_TAINTED_CALLS=approve). Words in a message
 *   never count.
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
  /**
   * High risk only: the call sends its arguments to a third party. Arguments that carry words of the turn's
   * untrusted text (and not of the user's message) are untrusted: consent by request or configuration does
   * not cover them, only an operator's approval does.
   */
  network?: boolean;
  /**
   * The call only computes or reads this service's own data: running it again after a crash has no effect to
   * duplicate and costs nothing outside, so it is not written to the run's tool ledger (one statement less).
   */
  readOnly?: boolean;
}

const low = (untrustedOutput: boolean, readOnly = false): ToolPolicy => ({ risk: 'low', untrustedOutput, readOnly });
const high = (network = false): ToolPolicy => ({ risk: 'high', untrustedOutput: true, ...(network ? { network } : {}) });

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
  python_repl: high(),
  read_file: high(),
  web_search: high(true),
  search_wikipedia: high(true),
};

const UNKNOWN: ToolPolicy = { risk: 'high', untrustedOutput: true };

/**
 * The policies of tools from outside this table, by name: an MCP server's tools (tools/mcp/), set from the
 * server's configured risk when they are registered. The table wins over them: no source can relax a built-in.
 */
const SOURCED = new Map<string, ToolPolicy>();

/**
 * An MCP server's `risk` as a policy. Its output is always text from outside (untrusted) and its calls are
 * recorded in the tool ledger (they act outside this service). `low` runs freely; `medium` is like python_repl
 * (after untrusted text, only with consent); `high` (the default) is like web_search: the server is a third
 * party, so after untrusted text it needs consent and arguments free of that text's words.
 */
export function mcpPolicy(risk: 'low' | 'medium' | 'high'): ToolPolicy {
  if (risk === 'low') return { risk: 'low', untrustedOutput: true };
  return risk === 'medium' ? high() : high(true);
}

export function setSourcedPolicy(name: string, policy: ToolPolicy): void {
  SOURCED.set(name, policy);
}

export function toolPolicy(name: string): ToolPolicy {
  if (Object.hasOwn(TOOL_POLICIES, name)) return TOOL_POLICIES[name];
  return SOURCED.get(name) ?? UNKNOWN;
}

export function toolRisk(name: string): ToolRisk {
  return toolPolicy(name).risk;
}
