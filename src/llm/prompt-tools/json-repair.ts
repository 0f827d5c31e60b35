/**
 * Lenient JSON for model output: code fences, prose after the object, single quotes, trailing commas,
 * unquoted keys, Python literals. Returns the value and whether a repair was needed; undefined when even the
 * repaired text is not JSON.
 */
export function parseLenientJson(raw: string): { value: unknown; repaired: boolean } | undefined {
  const text = raw
    .trim()
    .replace(/^```(?:json|JSON)?\s*/, '')
    .replace(/\s*```\s*$/, '')
    .trim();
  const strict = tryParse(text);
  if (strict !== undefined) return { value: strict, repaired: text !== raw.trim() };
  const object = balancedObject(text);
  if (!object) return undefined;
  for (const candidate of [object, repair(object)]) {
    const v = tryParse(candidate);
    if (v !== undefined) return { value: v, repaired: true };
  }
  return undefined;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The first `{ … }` with balanced braces (strings respected), or null. */
export function balancedObject(text: string, from = 0): string | null {
  const start = text.indexOf('{', from);
  if (start < 0) return null;
  let depth = 0;
  let quote: string | null = null;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return null;
}

function repair(text: string): string {
  let s = text;
  // single-quoted strings → double-quoted (escaping inner double quotes)
  s = s.replace(/'((?:[^'\\]|\\.)*)'/g, (_m, inner: string) => `"${inner.replace(/"/g, '\\"').replace(/\\'/g, "'")}"`);
  // unquoted keys
  s = s.replace(/([{,]\s*)([A-Za-z_][\w-]*)\s*:/g, '$1"$2":');
  // Python literals outside strings (good enough for model output: tokens standing alone)
  s = s
    .replace(/:\s*True\b/g, ': true')
    .replace(/:\s*False\b/g, ': false')
    .replace(/:\s*None\b/g, ': null');
  // trailing commas
  s = s.replace(/,\s*([}\]])/g, '$1');
  return s;
}
