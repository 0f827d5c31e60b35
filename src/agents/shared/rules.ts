import type { ToolCall } from '@langchain/core/messages/tool';

import { zoneInText } from '../../tools/basic/time-zones';

/**
 * The rule fast path (the seeds' LightweightClassifier): decisions that need no model.
 * `bareExpression` → the calculator answers alone; the other rules only choose a tool when no model is configured.
 */
const BARE_EXPRESSION = /^[\d\s.,+\-*/×÷^%()]+$/;
/** A run of arithmetic characters inside a sentence (no commas: in prose they separate clauses). */
const EXPRESSION_RUN = /[\d\s.+\-*/×÷^%()]+/g;
/** An operator between two operands: what makes a run an expression rather than a date, a sign or a number. */
const OPERATION = /[\d.)]\s*[+\-*/×÷^%]\s*[\d.(]/;
const TIME_WORDS =
  /(몇\s*시|지금\s*시간|현재\s*시간|현지\s*시간|오늘\s*(날짜|며칠|무슨\s*요일)|what\s+time|what'?s\s+the\s+time|time\s+is\s+it|current\s+time|local\s+time|today'?s\s+date|what\s+day|date\s+today)/i;

export function bareExpression(message: string): string | null {
  const m = message
    .trim()
    .replace(/[=?]\s*$/, '')
    .trim();
  return BARE_EXPRESSION.test(m) && /\d/.test(m) && /[+\-*/×÷^%]/.test(m) ? m : null;
}

let counter = 0;
const callId = () => `rule_${Date.now().toString(36)}_${(counter++).toString(36)}`;

/** Operators said in words between two numbers ("12 times 7", "20 나누기 4"), as symbols. */
const WORD_OPERATORS: Array<[RegExp, string]> = [
  [/(?<=\d)\s*(?:times|multiplied\s+by|곱하기)\s*(?=[\d(])/gi, ' * '],
  [/(?<=\d)\s*(?:divided\s+by|나누기)\s*(?=[\d(])/gi, ' / '],
  [/(?<=\d)\s*(?:plus|더하기)\s*(?=[\d(])/gi, ' + '],
  [/(?<=\d)\s*(?:minus|빼기)\s*(?=[\d(])/gi, ' - '],
];

function withSymbols(message: string): string {
  return WORD_OPERATORS.reduce((text, [words, symbol]) => text.replace(words, symbol), message);
}

/** Drops the parentheses that have no partner inside `text` ("4) * 2" → "4 * 2"), keeping every balanced pair. */
function balanced(text: string): string {
  const unmatched = new Set<number>();
  const open: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') open.push(i);
    else if (text[i] === ')' && open.pop() === undefined) unmatched.add(i);
  }
  for (const i of open) unmatched.add(i);
  return [...text].filter((_, i) => !unmatched.has(i)).join('');
}

/**
 * The arithmetic expression written inside a sentence, in any language ("What is (12 + 3) * 4?",
 * "(12 + 3) * 4는 얼마야?", "Calcule (2+3)*4 s'il te plaît"), with its parentheses kept; the longest when
 * there are several; null when there is none.
 */
export function expressionInText(message: string): string | null {
  let best: string | null = null;
  for (const [run] of withSymbols(message).matchAll(EXPRESSION_RUN)) {
    const expr = balanced(run)
      .replace(/^[\s+*/×÷^%]+/, '')
      .replace(/[\s+\-*/×÷^.]+$/, '')
      .trim();
    if (OPERATION.test(expr) && (!best || expr.length > best.length)) best = expr;
  }
  return best;
}

/** A tool call the rules are sure of, or null. */
export function ruleToolCall(message: string): ToolCall | null {
  const expr = bareExpression(message) ?? expressionInText(message);
  if (expr) return { id: callId(), name: 'calculator', args: { expression: expr.trim() }, type: 'tool_call' };
  if (TIME_WORDS.test(message)) {
    // the zone or city the question names; none → the tool's default (DEFAULT_TIMEZONE, else the process's zone)
    const timezone = zoneInText(message);
    return { id: callId(), name: 'get_current_datetime', args: timezone ? { timezone } : {}, type: 'tool_call' };
  }
  return null;
}
