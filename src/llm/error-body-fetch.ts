import { phaseSince, recordingPhases } from '../observability/phases';

/**
 * `fetch` for the OpenAI client that keeps an endpoint's error text readable. The client reads an error's
 * message only from `{"error": {"message": …}}`; vLLM (before its errors became OpenAI-shaped) answers
 * `{"object": "error", "message": …, "type": "BadRequestError", "code": 400}`, which the client reports as
 * "400 status code (no body)" — losing e.g. "auto tool choice requires --enable-auto-tool-choice", which
 * LLM_TOOL_CALLING=auto must see. Such bodies are rewrapped; everything else passes through untouched.
 */
export const errorBodyFetch: typeof fetch = async (input, init) => {
  const started = performance.now();
  const res = await fetch(input, init);
  if (res.ok || !res.headers.get('content-type')?.includes('json')) return recordingPhases() ? timedBody(res, started) : res;
  const text = await res.text();
  return new Response(rewrapError(text), { status: res.status, statusText: res.statusText, headers: res.headers });
};

/** `{message, type, code}` at the top level → `{error: {message, type, code}}`; other bodies unchanged. */
export function rewrapError(text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return text;
  const b = body as Record<string, unknown>;
  if (b.error !== undefined || typeof b.message !== 'string') return text;
  return JSON.stringify({ error: { message: b.message, type: b.type ?? null, param: b.param ?? null, code: b.code ?? null } });
}

/** PHASE_TIMINGS: the model call's request → first chunk (headers) and → last chunk of the body. */
function timedBody(res: Response, started: number): Response {
  phaseSince('model_request_to_first_chunk', started);
  if (!res.body) return res;
  const body = res.body.pipeThrough(new TransformStream({ flush: () => phaseSince('model_request_to_last_chunk', started) }));
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}
