/**
 * Consent for high-risk tools once untrusted text is in a turn (tool-guard.ts): given by structure, never by
 * words. A caller allows tools with the request (`allow_tools` on REST v1, `config.configurable.allow_tools` on a
 * LangGraph run or its assistant), an operator with the configuration (TOOL_CONSENT, per agent or for all), or
 * an operator approves the one call (TOOL_APPROVAL, TOOL_TAINTED_CALLS=approve). What the user's message says
 * about tools never matters: a retrieved document can quote any message.
 */

/** One TOOL_CONSENT entry: `tool` (every agent) or `agent:tool`. */
export interface ConsentRule {
  agent?: string;
  tool: string;
}

export function parseConsentRules(entries: readonly string[]): ConsentRule[] {
  return entries.map((e) => {
    const at = e.indexOf(':');
    return at < 0 ? { tool: e } : { agent: e.slice(0, at), tool: e.slice(at + 1) };
  });
}

/** The tools this run may call after untrusted text entered it: the configuration's for its agent and the request's. */
export function consentedTools(rules: readonly ConsentRule[], agent: string, requested: unknown): ReadonlySet<string> {
  const tools = new Set(rules.filter((r) => r.agent === undefined || r.agent === agent).map((r) => r.tool));
  if (Array.isArray(requested)) for (const t of requested) if (typeof t === 'string') tools.add(t);
  return tools;
}

/** Keeps this much untrusted text per turn to compare arguments against; beyond it every unknown word is suspect. */
const MAX_KEPT_CHARS = 512 * 1024;
const WORD = /[\p{L}\p{N}]{2,}/gu;

function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number') out.push(String(value));
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) stringsOf(v, out);
  return out;
}

/**
 * The untrusted text that entered a turn, to tell whether a network tool's arguments came from it. Text that
 * was not seen (a resumed turn, more than MAX_KEPT_CHARS) makes it opaque: then every argument word missing
 * from the user's message counts as untrusted (fail closed).
 */
export class UntrustedText {
  private kept = '';
  private opaque = false;

  add(text: string | undefined): void {
    if (text === undefined) {
      this.opaque = true;
      return;
    }
    if (this.kept.length + text.length > MAX_KEPT_CHARS) this.opaque = true;
    else this.kept += `\n${text.toLowerCase()}`;
  }

  /** A word of `args` found in the untrusted text (or unknown, when opaque) and not in the user's message. */
  wordFrom(args: Record<string, unknown>, userMessage: string): string | undefined {
    const user = userMessage.toLowerCase();
    for (const s of stringsOf(args)) {
      for (const word of s.toLowerCase().match(WORD) ?? []) {
        if (user.includes(word)) continue;
        if (this.opaque || this.kept.includes(word)) return word;
      }
    }
    return undefined;
  }
}
