import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { type BaseMessage, SystemMessage } from '@langchain/core/messages';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import { Logger } from '@nestjs/common';
import type { z } from 'zod';

import { endpointOf } from './endpoint';
import { isRejection } from './model-errors';

/** LLM_JSON_MODE */
export type JsonModeSetting = 'auto' | 'json_schema' | 'json_object' | 'off';
/** what one call actually sends */
export type JsonMode = Exclude<JsonModeSetting, 'auto'>;

const logger = new Logger('JsonMode');
/** the mode that works per endpoint+model, learnt in `auto` (only ever downgraded) */
const working = new Map<string, JsonMode>();
/** LLM_JSON_MODE / LLM_JSON_RETRIES as configured for the models LlmService builds */
const configured = new WeakMap<BaseChatModel, { mode: JsonModeSetting; retries: number }>();

export function setJsonDecisionSettings(model: BaseChatModel, settings: { mode: JsonModeSetting; retries: number }): void {
  configured.set(model, settings);
}

/** The call's setting, else the model's (LLM_JSON_MODE), default auto. */
export function jsonSettingOf(model: BaseChatModel, override?: JsonModeSetting): JsonModeSetting {
  return override ?? configured.get(model)?.mode ?? 'auto';
}

/** The call's re-ask budget, else the model's (LLM_JSON_RETRIES), default 1. */
export function jsonRetriesOf(model: BaseChatModel, override?: number): number {
  return override ?? configured.get(model)?.retries ?? 1;
}

/** The mode a call starts with: explicit modes as set; `auto` → json_schema unless the endpoint taught otherwise. */
export function initialJsonMode(model: BaseChatModel, setting: JsonModeSetting, hasSchema: boolean): JsonMode {
  const mode = setting === 'auto' ? (working.get(endpointOf(model).key) ?? 'json_schema') : setting;
  return mode === 'json_schema' && !hasSchema ? 'json_object' : mode;
}

const RESPONSE_FORMAT_REFUSED = /response[_ ]format|json[_ ]schema|json[_ ]object|structured output|guided|not supported|unsupported/i;

/** HTTP 400/422 saying the endpoint does not support the requested response_format. */
export function isResponseFormatRejection(err: unknown): boolean {
  return isRejection(err, RESPONSE_FORMAT_REFUSED);
}

/** After a rejection in `auto`: the next weaker mode (remembered for the endpoint), or null at the end. */
export function downgradeJsonMode(model: BaseChatModel, from: JsonMode): JsonMode | null {
  const next: JsonMode | null = from === 'json_schema' ? 'json_object' : from === 'json_object' ? 'off' : null;
  if (!next) return null;
  const { key, baseUrl, model: name } = endpointOf(model);
  const known = working.get(key);
  if (known !== next && known !== 'off') {
    working.set(key, next);
    logger.warn({ msg: `endpoint rejected response_format ${from}; using ${next} for this model from now on`, baseUrl, model: name });
  }
  return next;
}

/**
 * The call options that ask for JSON in `mode`, and the mode they really use: json_schema needs a schema
 * whose root is an object and that JSON Schema can express (no transforms); otherwise json_object.
 */
export function responseFormatFor(
  mode: JsonMode,
  schema: z.ZodType | null,
  name: string,
): { mode: JsonMode; options: Record<string, unknown> } {
  if (mode === 'off') return { mode, options: {} };
  const jsonSchema = mode === 'json_schema' && schema ? objectJsonSchema(schema) : null;
  if (!jsonSchema) return { mode: 'json_object', options: { response_format: { type: 'json_object' } } };
  // a plain JSON schema (not the zod object): the client then leaves parsing to us, prose and all
  const json_schema = { name: name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'decision', schema: jsonSchema, strict: false };
  return { mode, options: { response_format: { type: 'json_schema', json_schema } } };
}

function objectJsonSchema(schema: z.ZodType): Record<string, unknown> | null {
  try {
    const { $schema: _dialect, ...rest } = toJsonSchema(schema) as Record<string, unknown>;
    return rest.type === 'object' ? rest : null;
  } catch {
    return null;
  }
}

/**
 * OpenAI's JSON mode requires the word "JSON" somewhere in the messages. When it is missing, the hint joins
 * the leading system message (or becomes one): chat templates of open models reject a system message later on.
 */
export function ensureJsonMentioned(messages: BaseMessage[], mode: JsonMode): BaseMessage[] {
  if (mode === 'off' || messages.some((m) => /json/i.test(typeof m.content === 'string' ? m.content : JSON.stringify(m.content))))
    return messages;
  const [first, ...rest] = messages;
  if (first?.getType() === 'system' && typeof first.content === 'string')
    return [new SystemMessage(`${first.content}\n\n${JSON_HINT}`), ...rest];
  return [new SystemMessage(JSON_HINT), ...messages];
}

const JSON_HINT = 'Respond with a JSON object only.';

/** Forget what was learnt (tests). */
export function resetJsonModeMemory(): void {
  working.clear();
}
