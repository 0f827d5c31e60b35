import type { AIMessage, BaseMessage, ToolMessage } from '@langchain/core/messages';

import { type Language, localize, type Messages } from '../../core/language';
import { untrustedBodies } from '../../tools/untrusted';
import { bareExpression } from './rules';

/** One tool's result of this turn, as the answer without a model words it. */
export interface ToolResult {
  name: string;
  args: Record<string, unknown>;
  /** the tool's output, or its error text (`Error: …`) */
  output: string;
}

/** `2026-11-29T10:04:05+09:00 (Sunday, Asia/Seoul)`: what get_current_datetime returns. */
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):\d{2}([+-]\d{2}:\d{2}) \((\w+), ([^)]+)\)$/;

interface DateParts {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  offset: string;
  weekday: string;
  zone: string;
}

interface ToolSentences {
  calculated: (expression: string, value: string) => string;
  notCalculated: (expression: string, reason: string) => string;
  now: (d: DateParts) => string;
  returned: (tool: string, output: string) => string;
  failed: (tool: string, reason: string) => string;
}

const KO_WEEKDAYS: Record<string, string> = {
  Monday: '월요일',
  Tuesday: '화요일',
  Wednesday: '수요일',
  Thursday: '목요일',
  Friday: '금요일',
  Saturday: '토요일',
  Sunday: '일요일',
};

/** Other languages read the English sentences (core/language.ts `localize`). */
const SENTENCES: Messages<ToolSentences> = {
  en: {
    calculated: (e, v) => `${e} is ${v}.`,
    notCalculated: (e, r) => `I could not calculate ${e}: ${r}.`,
    now: (d) => `In ${d.zone} it is ${d.hour}:${d.minute} on ${d.weekday}, ${d.year}-${d.month}-${d.day} (UTC${d.offset}).`,
    returned: (t, o) => `The ${t} tool returned: ${o}`,
    failed: (t, r) => `The ${t} tool failed: ${r}.`,
  },
  ko: {
    calculated: (e, v) => `${e}의 값은 ${v}입니다.`,
    notCalculated: (e, r) => `${e}을(를) 계산하지 못했습니다: ${r}.`,
    now: (d) =>
      `${d.zone} 기준 지금은 ${d.year}년 ${Number(d.month)}월 ${Number(d.day)}일 ${KO_WEEKDAYS[d.weekday] ?? d.weekday} ` +
      `${d.hour}시 ${d.minute}분(UTC${d.offset})입니다.`,
    returned: (t, o) => `${t} 도구의 결과입니다: ${o}`,
    failed: (t, r) => `${t} 도구가 실패했습니다: ${r}.`,
  },
};

/** The error's reason without the `Error: calculator: ` prefixes the executor and the tool put before it. */
function reasonOf(output: string, tool: string): string {
  return output
    .replace(/^Error:\s*/, '')
    .replace(new RegExp(`^${tool}:\\s*`), '')
    .replace(/\.\s*$/, '');
}

function sentence(result: ToolResult, texts: ToolSentences): string {
  const output = untrustedBodies(result.output).trim();
  const failed = /^Error:/.test(output);
  const expression = typeof result.args.expression === 'string' ? result.args.expression : '';
  if (result.name === 'calculator' && expression) {
    return failed ? texts.notCalculated(expression, reasonOf(output, 'calculator')) : texts.calculated(expression, output);
  }
  const date = result.name === 'get_current_datetime' && !failed ? DATETIME.exec(output) : null;
  if (date) {
    const [, year, month, day, hour, minute, offset, weekday, zone] = date;
    return texts.now({ year, month, day, hour, minute, offset, weekday, zone });
  }
  return failed ? texts.failed(result.name, reasonOf(output, result.name)) : texts.returned(result.name, output);
}

/**
 * The answer of a turn without a model: one short sentence per tool result, in the user's language
 * ("(12 + 3) * 4 is 60.", "(12 + 3) * 4의 값은 60입니다."); languages without sentences of their own read English.
 * A message that is a bare expression is answered as one, in every language: "(12 + 3) * 4 = 60".
 */
export function toolAnswer(results: ToolResult[], language: Language, message = ''): string {
  const expr = bareExpression(message);
  const only = results.length === 1 ? untrustedBodies(results[0].output).trim() : null;
  if (expr && only !== null && results[0].name === 'calculator' && !/^Error:/.test(only)) return `${expr} = ${only}`;
  const texts = localize(SENTENCES, language);
  return results.map((r) => sentence(r, texts)).join('\n');
}

/** The tool results at the end of `messages` (the turn's last tool round), each with the arguments it was called with. */
export function lastToolResults(messages: BaseMessage[]): ToolResult[] {
  const results: ToolResult[] = [];
  let i = messages.length - 1;
  for (; i >= 0 && messages[i].getType() === 'tool'; i--) {
    const m = messages[i] as ToolMessage;
    results.unshift({ name: m.name ?? 'tool', args: {}, output: typeof m.content === 'string' ? m.content : JSON.stringify(m.content) });
  }
  const calls = i >= 0 && messages[i].getType() === 'ai' ? ((messages[i] as AIMessage).tool_calls ?? []) : [];
  const ids = messages.slice(i + 1).map((m) => (m as ToolMessage).tool_call_id);
  results.forEach((r, k) => {
    r.args = calls.find((c) => c.id === ids[k])?.args ?? calls.find((c) => c.name === r.name)?.args ?? {};
  });
  return results;
}
