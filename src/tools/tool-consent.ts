import { MIN_RUN, normalisedChars, normaliseForRuns, RunDigest, runsOf } from './untrusted-runs';

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

/** The most characters of an argument a refusal quotes. */
const MAX_SHOWN = 80;

function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number') out.push(String(value));
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) stringsOf(v, out);
  return out;
}

/**
 * The untrusted text that entered a thread, to tell whether a network tool's arguments came from it: kept as a
 * bounded digest of its character runs (untrusted-runs.ts), which the thread keeps across turns and forks. Text
 * that was not seen (a turn resumed mid-way, a source that gave no text) or a digest too full to tell runs apart
 * make it opaque: then every run of the arguments missing from the user's message counts as untrusted (fail closed).
 */
export class UntrustedText {
  readonly digest: RunDigest;
  private unseen = false;
  /** this run only: text may have entered unseen (a resumed turn) */
  private assumed = false;

  constructor(digest?: Uint8Array | null, opaque = false) {
    this.digest = new RunDigest(digest);
    this.unseen = opaque;
  }

  /** Adds untrusted text (undefined: text this guard did not see); true when something new was learnt. */
  add(text: string | undefined): boolean {
    if (text !== undefined) return this.digest.add(text);
    const changed = !this.unseen;
    this.unseen = true;
    return changed;
  }

  /** This run may hold text it did not see (not recorded on the thread). */
  assumeUnseen(): void {
    this.assumed = true;
  }

  /** Text was not seen, or too much was: every run counts as untrusted. */
  get opaque(): boolean {
    return this.unseen || this.assumed || this.digest.full;
  }

  /** Whether text the guard did not see entered the thread (what the thread records; a full digest is not it). */
  get hasUnseen(): boolean {
    return this.unseen;
  }

  /**
   * A run of `args` (normalised, MIN_RUN characters or more) found in the untrusted text (or any, when opaque) and
   * not in the user's message: the argument's text that carries the longest such stretch, or undefined.
   */
  runFrom(args: Record<string, unknown>, userMessage: string): string | undefined {
    const user = new Set(runsOf(normaliseForRuns(userMessage)));
    for (const s of stringsOf(args)) {
      const chars = normalisedChars(s);
      const runs = runsOf(chars.map((x) => x.c).join(''));
      const suspect = runs.map((r) => !user.has(r) && (this.opaque || this.digest.has(r)));
      const first = suspect.indexOf(true);
      if (first < 0) continue;
      let last = first;
      while (suspect[last + 1]) last += 1;
      const end = chars[last + MIN_RUN - 1];
      return s.slice(chars[first].at, end.at + [...s.slice(end.at)][0].length).slice(0, MAX_SHOWN);
    }
    return undefined;
  }
}
