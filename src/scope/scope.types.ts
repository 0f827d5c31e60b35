import type { Messages } from '../core/language';

/** What an agent declares about its domain, for the ScopeValidator. */
export interface ScopeSpec {
  /** one line for the model prompt, e.g. "계약서(조항, 조건, 별지)에 관한 질문" */
  domain: string;
  /** patterns that make a message clearly in scope */
  inScope: RegExp[];
  /** patterns that make a message clearly out of scope (unless an in-scope pattern also matches) */
  outOfScope: RegExp[];
  /** the polite refusal, per language (core/language.ts): the user is refused in the language they wrote in */
  refusal: Messages<string>;
}

export interface ScopeVerdict {
  is_valid: boolean;
  reason: string;
  /** who decided: the rules, the model, or the default when neither could (unsure → in scope) */
  decided_by: 'rules' | 'model' | 'default';
}
