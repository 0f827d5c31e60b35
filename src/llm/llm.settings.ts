import { z } from 'zod';

import {
  bool,
  defineSettings,
  int,
  invalidConfiguration,
  optionalString,
  optionalUrl,
  type SettingsOf,
  variable,
} from '../config/settings';

export type ToolCallingSetting = 'native' | 'prompt' | 'auto';

export type LlmSettings = {
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  toolCalling: ToolCallingSetting;
  /** overrides of `toolCalling` by agent name */
  toolCallingByAgent: Record<string, ToolCallingSetting>;
  /** how JSON decisions ask for JSON (`auto`: json_schema → json_object → prose, as the endpoint accepts) */
  jsonMode: 'auto' | 'json_schema' | 'json_object' | 'off';
  /** re-asks of an unparseable JSON decision */
  jsonRetries: number;
  /** per endpoint: open after `failures` consecutive failures within `windowMs`, for `cooldownMs` */
  breaker: { failures: number; windowMs: number; cooldownMs: number };
  timeoutMs: number;
  maxRetries: number;
  temperature: number;
  maxTokens?: number;
  cache: { enabled: boolean; ttlSeconds: number; maxEntries: number };
};

/** The chat model: endpoint, tool calling, JSON mode, retries, circuit breaker, response cache. */
export const llmSettings = defineSettings({
  module: 'llm',
  variables: {
    LLM_BASE_URL: variable(
      optionalUrl(['http', 'https']),
      'OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, LM Studio)',
      'unset → no model',
    ),
    LLM_API_KEY: variable(optionalString, "the endpoint's API key", 'unset → no model'),
    LLM_MODEL: variable(optionalString, 'the model name (OpenAI itself needs only a key and a model)', 'unset → no model'),
    LLM_TOOL_CALLING: variable(
      z.enum(['native', 'prompt', 'auto']).default('auto'),
      '`native` (API tool calls), `prompt` (ReAct text format) or `auto` (native; when the endpoint refuses tools — vLLM without `--enable-auto-tool-choice`, Ollama "does not support tools" — that model switches to `prompt` for the rest of the process, logged once, and the call is retried)',
    ),
    LLM_TOOL_CALLING_AGENTS: variable(optionalString, 'per-agent override, e.g. `supervisor:prompt,react:native,assistant:auto`', 'none'),
    LLM_TIMEOUT_MS: variable(int(60_000, 100), 'per model request'),
    LLM_MAX_RETRIES: variable(
      z.coerce.number().int().min(0).max(3).default(3),
      'retries of a failed model request (0–3, exponential backoff; a 429 waits at least its `retry-after`, and one asking for over a minute fails at once)',
    ),
    LLM_TEMPERATURE: variable(z.coerce.number().min(0).max(2).default(0), 'sampling temperature (0–2)'),
    LLM_MAX_TOKENS: variable(z.coerce.number().int().positive().optional(), 'completion tokens per model call'),
    LLM_JSON_MODE: variable(
      z.enum(['auto', 'json_schema', 'json_object', 'off']).default('auto'),
      'how JSON decisions (scope, router, planner, evaluator…) ask for JSON: `json_schema` (`response_format` from the zod schema), `json_object`, `off` (prose, parsed leniently) or `auto` (json_schema → json_object → off as the endpoint rejects them with a 400, remembered per endpoint and model)',
    ),
    LLM_JSON_RETRIES: variable(
      z.coerce.number().int().min(0).max(3).default(1),
      're-asks of a JSON decision whose answer is unparseable or off-schema (0–3)',
    ),
    LLM_BREAKER_FAILURES: variable(
      int(5, 1),
      'circuit breaker per model endpoint (base URL): opens after this many consecutive failed calls (after their retries; 5xx, 429, timeouts, connection errors) within `LLM_BREAKER_WINDOW_MS`; while open, calls fail at once with `MODEL_UNAVAILABLE`',
    ),
    LLM_BREAKER_WINDOW_MS: variable(int(60_000, 100), "the circuit breaker's window for consecutive failures"),
    LLM_BREAKER_COOLDOWN_MS: variable(int(30_000, 10), 'how long an open circuit breaker stays open; then one probe call decides'),
    LLM_CACHE: variable(
      bool(true),
      'LLM response cache (Redis when `REDIS_URL` is set, else in-process; key: tenant, prompt, model, temperature, max tokens, tools; a call outside a tenant is not cached)',
    ),
    LLM_CACHE_TTL_SECONDS: variable(int(3600, 1), 'how long a cached response is served'),
    LLM_CACHE_MAX_ENTRIES: variable(int(5000, 1), 'entries the in-process cache keeps'),
  },
  build: (e) => {
    const llm: LlmSettings = {
      baseUrl: e.LLM_BASE_URL,
      apiKey: e.LLM_API_KEY,
      model: e.LLM_MODEL,
      toolCalling: e.LLM_TOOL_CALLING,
      toolCallingByAgent: parseModes(e.LLM_TOOL_CALLING_AGENTS),
      timeoutMs: e.LLM_TIMEOUT_MS,
      maxRetries: e.LLM_MAX_RETRIES,
      temperature: e.LLM_TEMPERATURE,
      maxTokens: e.LLM_MAX_TOKENS,
      cache: { enabled: e.LLM_CACHE, ttlSeconds: e.LLM_CACHE_TTL_SECONDS, maxEntries: e.LLM_CACHE_MAX_ENTRIES },
      jsonMode: e.LLM_JSON_MODE,
      jsonRetries: e.LLM_JSON_RETRIES,
      breaker: { failures: e.LLM_BREAKER_FAILURES, windowMs: e.LLM_BREAKER_WINDOW_MS, cooldownMs: e.LLM_BREAKER_COOLDOWN_MS },
    };
    return { llm };
  },
  getters: {
    /** A model is configured when a base URL or a model name is given (OpenAI itself needs only a key + model). */
    modelConfigured: ({ llm }: { llm: LlmSettings }) => Boolean(llm.baseUrl || (llm.apiKey && llm.model)),
  },
});

/** LLM_TOOL_CALLING_AGENTS: `agent:mode,agent:mode` */
function parseModes(spec: string | undefined): Record<string, ToolCallingSetting> {
  const out: Record<string, ToolCallingSetting> = {};
  for (const part of (spec ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [agent, mode] = part.split(':').map((x) => x.trim());
    if (!agent || (mode !== 'native' && mode !== 'prompt' && mode !== 'auto')) {
      throw invalidConfiguration(`LLM_TOOL_CALLING_AGENTS: "${part}" is not agent:native|prompt|auto`);
    }
    out[agent] = mode;
  }
  return out;
}

declare module '../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: this slice's fields on AppConfig
  interface AppConfig extends SettingsOf<typeof llmSettings> {}
}
