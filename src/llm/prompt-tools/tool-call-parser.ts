import { balancedObject, parseLenientJson } from './json-repair';

/**
 * ToolCallParser for prompt-based tool calling (seed 003). Accepts the three formats
 *   1. `Action: name` + `Action Input: {json}`            (ReAct)
 *   2. `<tool_call>name</tool_call><tool_input>{json}</tool_input>`  (also `<tool_call>{"name", "arguments"}</tool_call>`)
 *   3. a fenced JSON block `{"action": name, "action_input": {json}}`
 * plus `<|python_tag|>{"name", "parameters"}` calls of Llama-style models, and the final-answer forms
 * `Final Answer:`, `최종 답변:`, `Answer:`, `답변:`, `결론:`, `결과:`.
 *
 * Decisions: when a reply holds both a call and a final answer, whichever comes first wins (a model that
 * writes an Action and then hallucinates the answer must still get its Observation). A plain string action
 * input becomes `{ input: "…" }`. Prose with no marker at all is a final answer (open models often answer
 * plainly); prose with a broken call (a marker we cannot read) is a `format_error` the caller feeds back.
 */
export type ParsedReply =
  | { kind: 'tool_call'; tool: string; input: Record<string, unknown>; thought?: string; repaired: boolean }
  | { kind: 'final'; answer: string; thought?: string }
  | { kind: 'format_error'; observation: string }
  | { kind: 'unknown_tool'; tool: string; observation: string };

interface Call {
  at: number;
  tool: string;
  rawInput: unknown;
  repaired?: boolean;
}

const SPECIAL_TOKENS = /<\|(?:python_tag|eom_id|eot_id|im_end|im_start|end|assistant)\|>/g;
const THOUGHT =
  /(?:Thought|생각)\s*[:：]\s*([\s\S]*?)(?=\n\s*(?:Action|Final Answer|최종\s*답변|Answer|답변|결론|결과)\s*[:：]|<tool_call>|```|$)/i;
const REACT =
  /Action\s*[:：][`*]*\s*[`*]*([A-Za-z_][\w.-]*)[`*]*\s*\n+\s*[`*]*Action\s*Input\s*[:：][`*]*\s*([\s\S]*?)(?=\n\s*(?:Observation|Thought|Final Answer|최종\s*답변)\s*[:：]|$)/i;
const XML_NAMED = /<tool_call>\s*([A-Za-z_][\w.-]*)\s*<\/tool_call>\s*<tool_input>\s*([\s\S]*?)\s*<\/tool_input>/i;
const XML_JSON = /<tool_call>\s*(\{[\s\S]*?\})\s*<\/tool_call>/i;
const FENCE = /```(?:json|JSON)?\s*([\s\S]*?)```/g;
const FINAL = /(?:Final\s*Answer|최종\s*답변|Answer|답변|결론|결과)\s*[:：]\s*([\s\S]+)/i;
const TOOLISH = /Action\s*(?:Input)?\s*[:：]|<tool_call>|<tool_input>|"action"\s*:|"action_input"|"arguments"\s*:/i;

export function parseToolCallReply(reply: string, allowedTools: readonly string[]): ParsedReply {
  const text = reply.replace(SPECIAL_TOKENS, '\n').trim();
  if (!text) return formatError('The reply was empty.', allowedTools);
  const thought = text.match(THOUGHT)?.[1]?.trim() || undefined;
  const jsonFinal = findJsonFinal(text);
  if (jsonFinal !== null) return { kind: 'final', answer: jsonFinal, thought };
  const call = findCall(text, allowedTools);
  const final = FINAL.exec(text);
  const finalAt = final ? final.index : Infinity;

  if (call && call.at < finalAt) {
    if (!allowedTools.includes(call.tool)) {
      return {
        kind: 'unknown_tool',
        tool: call.tool,
        observation: `Observation: "${call.tool}" is not an available tool. Use one of: ${allowedTools.join(', ')} — or give the Final Answer.`,
      };
    }
    const input = toInput(call.rawInput);
    if (!input) return formatError(`The Action Input for ${call.tool} is not valid JSON.`, allowedTools);
    return { kind: 'tool_call', tool: call.tool, input: input.value, thought, repaired: input.repaired || Boolean(call.repaired) };
  }
  if (final) return { kind: 'final', answer: final[1].trim(), thought };
  // a reply that opens like JSON but is not JSON is a broken call, not an answer
  const brokenJson = /^[{[]/.test(text) && parseLenientJson(text) === undefined;
  if (TOOLISH.test(text) || brokenJson) return formatError('The tool call could not be read.', allowedTools);
  return { kind: 'final', answer: text };
}

function findCall(text: string, allowed: readonly string[]): Call | null {
  const calls: Call[] = [];
  const react = REACT.exec(text);
  if (react) calls.push({ at: react.index, tool: react[1], rawInput: react[2] });
  const named = XML_NAMED.exec(text);
  if (named) calls.push({ at: named.index, tool: named[1], rawInput: named[2] });
  const xmlJson = XML_JSON.exec(text);
  if (xmlJson) pushJsonCall(calls, xmlJson[1], xmlJson.index, allowed);
  for (const fence of text.matchAll(FENCE)) pushJsonCall(calls, fence[1], fence.index ?? 0, allowed);
  if (calls.length === 0) {
    // a bare JSON call (python_tag style) anywhere in the reply
    const obj = balancedObject(text);
    if (obj) pushJsonCall(calls, obj, text.indexOf(obj), allowed);
  }
  calls.sort((a, b) => a.at - b.at);
  return calls[0] ?? null;
}

/**
 * `{"action", "action_input"}` or `{"name", "arguments" | "parameters"}`. JSON that merely has a `name`
 * (an answer that is data) counts only when that name is an available tool.
 */
function pushJsonCall(calls: Call[], raw: string, at: number, allowed: readonly string[]): void {
  const lenient = parseLenientJson(raw);
  const parsed = lenient?.value as Record<string, unknown> | undefined;
  if (!parsed || typeof parsed !== 'object') return;
  const tool = parsed.action ?? parsed.name ?? parsed.tool;
  if (typeof tool !== 'string' || /^final[ _]?answer$/i.test(tool)) return;
  const callShaped = ['action_input', 'arguments', 'parameters', 'args'].some((k) => k in parsed) || 'action' in parsed;
  if (!callShaped && !allowed.includes(tool)) return;
  calls.push({
    at,
    tool,
    rawInput: parsed.action_input ?? parsed.arguments ?? parsed.parameters ?? parsed.args ?? {},
    repaired: lenient?.repaired,
  });
}

/** A fenced JSON block `{"action": "Final Answer", "action_input": "…"}` (LangChain's JSON agent format). */
function findJsonFinal(text: string): string | null {
  for (const fence of text.matchAll(FENCE)) {
    const v = parseLenientJson(fence[1])?.value as Record<string, unknown> | undefined;
    if (v && typeof v.action === 'string' && /^final[ _]?answer$/i.test(v.action)) {
      return typeof v.action_input === 'string' ? v.action_input : JSON.stringify(v.action_input ?? '');
    }
  }
  return null;
}

function toInput(raw: unknown): { value: Record<string, unknown>; repaired: boolean } | null {
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) return { value: raw as Record<string, unknown>, repaired: false };
  if (typeof raw !== 'string') return null;
  const trimmed = raw.trim();
  if (!trimmed) return { value: {}, repaired: true };
  const parsed = parseLenientJson(trimmed);
  if (parsed) {
    const v = parsed.value;
    if (v && typeof v === 'object' && !Array.isArray(v)) return { value: v as Record<string, unknown>, repaired: parsed.repaired };
    if (typeof v === 'string') return { value: { input: v }, repaired: true };
    return null;
  }
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return null;
  return { value: { input: trimmed.replace(/^["']|["']$/g, '') }, repaired: true };
}

function formatError(problem: string, tools: readonly string[]): ParsedReply {
  return {
    kind: 'format_error',
    observation: `Observation: ${problem} Reply either with\nAction: <one of ${tools.join(', ')}>\nAction Input: {"arg": "value"}\nor with\nFinal Answer: <your answer>`,
  };
}
