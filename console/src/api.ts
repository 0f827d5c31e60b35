/** The console's calls to the service: the API key as `Authorization: Bearer`, errors as ApiError. */

const KEY_STORAGE = 'agent-console.api-key';

export function storedKey(): string {
  return localStorage.getItem(KEY_STORAGE) ?? '';
}

export function storeKey(key: string): void {
  if (key) localStorage.setItem(KEY_STORAGE, key);
  else localStorage.removeItem(KEY_STORAGE);
}

/** An answer of the API that was not 2xx, with the service's `{ error: { code, message } }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  const key = storedKey();
  return key ? { authorization: `Bearer ${key}`, ...extra } : extra;
}

async function failure(res: Response): Promise<ApiError> {
  const body = await res.json().catch(() => undefined);
  const error = body?.error ?? {};
  return new ApiError(res.status, error.code ?? `HTTP_${res.status}`, error.message ?? body?.detail ?? res.statusText);
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }) };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(path, init);
  if (!res.ok) throw await failure(res);
  return (res.status === 204 ? undefined : await res.json()) as T;
}

export async function upload<T>(path: string, form: FormData): Promise<T> {
  const res = await fetch(path, { method: 'POST', headers: headers(), body: form });
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}

export interface SseEvent {
  event: string;
  data: any;
}

/** POST with a JSON body, then each Server-Sent Event of the answer as it arrives. */
export async function* postSse(path: string, body: unknown, signal?: AbortSignal): AsyncGenerator<SseEvent> {
  const res = await fetch(path, {
    method: 'POST',
    headers: headers({ 'content-type': 'application/json', accept: 'text/event-stream' }),
    body: JSON.stringify(body),
    signal,
  });
  if (!res.ok || !res.body) throw await failure(res);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data !== undefined) yield { event, data: JSON.parse(data) };
    }
  }
}

// --- what the API answers (the parts the console shows) ---

export interface Agent {
  name: string;
  description: string;
}
export interface GraphJson {
  nodes: Array<{ id: string; name?: string }>;
  edges: Array<{ source: string; target: string; conditional?: boolean }>;
}
export interface SessionSummary {
  session_id: string;
  agent: string | null;
  /** the first user message, cut to 60 characters (null before the first turn) */
  title: string | null;
  summary: string | null;
  updated_at: string;
}
export interface RunSummary {
  run_id: string;
  status: string;
  mode: string;
  llm_calls: number;
  created_at: string;
  finished_at: string | null;
}
export interface Message {
  role: string;
  content: string;
  run_id: string | null;
}
export interface SessionDetail extends SessionSummary {
  messages: Message[];
  runs: RunSummary[];
}
export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
  status: string;
}
export interface Source {
  kind: string;
  ref: string;
  title?: string;
}
export interface ChatResult {
  response: string;
  session_id: string;
  run_id: string;
  agent: string;
  tool_calls: ToolCall[];
  sources: Source[];
  execution_time_ms: number;
  llm_calls: number;
  error: { code: string; message: string } | null;
  metadata: Record<string, unknown>;
}
export interface ModelCall {
  node: string;
  ms: number;
  prompt_tokens: number;
  completion_tokens: number;
  error?: string;
  cached?: boolean;
}
export interface Trace {
  run_id: string;
  agent: string;
  status: string;
  decision_log: unknown[];
  tool_history: ToolCall[];
  model_calls: ModelCall[];
  usage: { llm_calls: number; prompt_tokens: number; completion_tokens: number };
}
export interface ContractSummary {
  contract_id: string;
  title: string;
  kind: string;
}
export interface Contract {
  contract_id: string;
  title: string;
  kind: string;
  articles: Array<{ number: string; title: string | null; clauses: unknown[] }>;
  exhibits: Array<{ number: string; title: string | null; content: string }>;
}
export interface KnowledgeDocument {
  document_id: string;
  title: string;
  source: string | null;
  chunks: number;
}
export interface DocumentDetail {
  document_id: string;
  title: string;
  source: string | null;
  chunks: Array<{ index: number; heading: string | null; content: string }>;
}
