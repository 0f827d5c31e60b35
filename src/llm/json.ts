import { parseLenientJson } from './prompt-tools/json-repair';

/** At most this many `{` / `[` starts are tried in a long prose reply. */
const MAX_CANDIDATES = 20;

/**
 * The JSON value in a model reply: the whole text, a ```json fence, or the first balanced object or array
 * inside prose (text before and after is ignored); sloppy JSON (single quotes, trailing commas, unquoted
 * keys, Python literals) is repaired. Undefined when there is none.
 */
export function parseJson(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  const whole = tryParse(trimmed);
  if (whole !== undefined) return whole;
  const fenced = trimmed.match(/```[a-zA-Z]*\s*([\s\S]*?)```/)?.[1];
  if (fenced !== undefined) {
    const inFence = parseEmbedded(fenced);
    if (inFence !== undefined) return inFence;
  }
  return parseEmbedded(trimmed);
}

function parseEmbedded(text: string): unknown {
  let from = 0;
  for (let i = 0; i < MAX_CANDIDATES; i++) {
    const start = nextOpener(text, from);
    if (start < 0) return undefined;
    const span = balancedSpan(text, start);
    if (span) {
      const strict = tryParse(span);
      if (strict !== undefined) return strict;
      const repaired = text[start] === '{' ? parseLenientJson(span)?.value : tryParse(span.replace(/,\s*([}\]])/g, '$1'));
      if (repaired !== undefined) return repaired;
    }
    from = start + 1;
  }
  return undefined;
}

function nextOpener(text: string, from: number): number {
  const o = text.indexOf('{', from);
  const a = text.indexOf('[', from);
  if (o < 0) return a;
  if (a < 0) return o;
  return Math.min(o, a);
}

/** The `{…}` or `[…]` starting at `start` with balanced brackets (strings respected), or null. */
function balancedSpan(text: string, start: number): string | null {
  const stack: string[] = [];
  let quote: string | null = null;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '{' || c === '[') stack.push(c === '{' ? '}' : ']');
    else if (c === '}' || c === ']') {
      if (stack.pop() !== c) return null;
      if (stack.length === 0) return text.slice(start, i + 1);
    }
  }
  return null;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
