import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { z } from 'zod';

import { parseJson } from './json';
import {
  downgradeJsonMode,
  ensureJsonMentioned,
  initialJsonMode,
  isResponseFormatRejection,
  type JsonMode,
  type JsonModeSetting,
  jsonRetriesOf,
  jsonSettingOf,
  responseFormatFor,
} from './json-mode';
import { isAbortError, toModelUnavailable } from './model-errors';

export interface DecideJsonOptions {
  /** the node name the call is metered under (run usage `llm_calls[].node`) */
  node: string;
  config?: RunnableConfig;
  /** re-asks after an unparseable or schema-violating answer (default LLM_JSON_RETRIES, 1) */
  retries?: number;
  /** overrides LLM_JSON_MODE for this call (e.g. 'off' to allow a top-level array) */
  mode?: JsonModeSetting;
}

export type DecideJsonResult<T> =
  { ok: true; value: T; raw: string; mode: JsonMode } | { ok: false; raw: string; reason: string; mode: JsonMode };

/** Pass as the schema to get the parsed JSON (object or array) without validation. */
export const RAW_JSON = null;

/**
 * One JSON decision from the model: asks for JSON the way the endpoint supports (LLM_JSON_MODE: json_schema
 * from the zod schema, json_object, or prose; `auto` steps down when the endpoint rejects a response_format,
 * remembers it per endpoint and retries the call), reads the reply leniently (fences, prose around it,
 * sloppy JSON), validates with zod and re-asks at most `retries` times with a short correction.
 *
 * Never throws for a bad answer (`ok: false` with the reason). Throws ModelUnavailableError when the model
 * could not answer (after the client's retries, or the circuit breaker is open); a cancelled call rethrows
 * its abort error unchanged.
 */
export async function decideJson<T>(
  model: BaseChatModel,
  messages: BaseMessage[],
  schema: z.ZodType<T> | typeof RAW_JSON,
  opts: DecideJsonOptions,
): Promise<DecideJsonResult<T>> {
  const retries = jsonRetriesOf(model, opts.retries);
  const setting = jsonSettingOf(model, opts.mode);
  let mode = initialJsonMode(model, setting, schema !== null);
  let transcript = messages;
  for (let attempt = 0; ; attempt++) {
    const answer = await invokeInMode(model, transcript, schema, { mode, auto: setting === 'auto' }, opts);
    mode = answer.mode;
    const raw = answer.text;
    const verdict = readAnswer(raw, schema);
    if (verdict.ok) return { ok: true, value: verdict.value, raw, mode };
    if (attempt >= retries) return { ok: false, raw, reason: verdict.reason, mode };
    transcript = [...transcript, new AIMessage(raw), new HumanMessage(correction(verdict.reason))];
  }
}

function readAnswer<T>(raw: string, schema: z.ZodType<T> | null): { ok: true; value: T } | { ok: false; reason: string } {
  const parsed = parseJson(raw);
  if (parsed === undefined) return { ok: false, reason: 'no JSON in the answer' };
  if (!schema) return { ok: true, value: parsed as T };
  const checked = schema.safeParse(parsed);
  if (checked.success) return { ok: true, value: checked.data };
  const issues = checked.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  return { ok: false, reason: `does not match the schema (${issues.join('; ')})` };
}

const correction = (reason: string) =>
  `이전 답변을 처리하지 못했습니다: ${reason}. 설명 없이 요청한 형식의 JSON 하나만 다시 출력하세요. (Answer again with only the requested JSON.)`;

/** One model call in `mode`, stepping down through the JSON modes while the endpoint rejects them. */
async function invokeInMode<T>(
  model: BaseChatModel,
  messages: BaseMessage[],
  schema: z.ZodType<T> | null,
  start: { mode: JsonMode; auto: boolean },
  opts: DecideJsonOptions,
): Promise<{ text: string; mode: JsonMode }> {
  const config = opts.config ?? {};
  for (let current = start.mode; ;) {
    const format = responseFormatFor(current, schema, opts.node);
    current = format.mode;
    const options: RunnableConfig = {
      ...config,
      ...format.options,
      metadata: { ...config.metadata, model_call_node: opts.node },
      // a decision is not part of the answer: keep its tokens out of token streaming
      tags: [...(config.tags ?? []), 'nostream'],
    };
    try {
      const reply = await model.invoke(ensureJsonMentioned(messages, current), options);
      return { text: textOf(reply), mode: current };
    } catch (err) {
      if (isAbortError(err, config.signal)) throw err;
      // only `auto` steps down; an explicit mode fails loudly
      const next = start.auto && isResponseFormatRejection(err) ? downgradeJsonMode(model, current) : null;
      if (!next) throw toModelUnavailable(err, config.signal);
      current = next;
    }
  }
}

export function textOf(message: BaseMessage): string {
  const c = message.content;
  if (typeof c === 'string') return c;
  return c.map((part) => (typeof part === 'string' ? part : 'text' in part && typeof part.text === 'string' ? part.text : '')).join('');
}
