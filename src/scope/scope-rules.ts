import type { ScopeSpec, ScopeVerdict } from './scope.types';

const SMALL_TALK =
  /^\s*(안녕|반가|고마|감사|수고|hi\b|hello\b|hey\b|thanks?\b|thank you|good (morning|afternoon|evening)|how are you|what can you do)/i;

/** The rule fast path: a verdict when the patterns are sure, null when the model should decide. */
export function scopeByRules(message: string, spec: ScopeSpec): ScopeVerdict | null {
  if (SMALL_TALK.test(message)) return { is_valid: true, reason: 'greeting or thanks', decided_by: 'rules' };
  const inHit = spec.inScope.find((p) => p.test(message));
  if (inHit) return { is_valid: true, reason: `matches ${inHit.source}`, decided_by: 'rules' };
  const outHit = spec.outOfScope.find((p) => p.test(message));
  if (outHit) return { is_valid: false, reason: `outside the domain (${outHit.source})`, decided_by: 'rules' };
  return null;
}
