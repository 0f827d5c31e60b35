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
  const res = await unclonedFetch(input, init);
  if (res.ok || !res.headers.get('content-type')?.includes('json')) return recordingPhases() ? timedBody(res, started) : res;
  const text = await res.text();
  return new Response(rewrapError(text), { status: res.status, statusText: res.statusText, headers: res.headers });
};

/**
 * Node's fetch (undici) copies every request before sending it — its body teed into two streams — unless the
 * request follows no redirects and has no window (the Fetch standard's HTTP-network-or-cache fetch), which is what
 * an API call with a JSON body needs. Such a call goes out uncopied; should the endpoint answer with a redirect, it
 * is sent again as the caller asked, so redirects are still followed. Any other request (a streamed or form body,
 * a redirect or window the caller chose) goes out as it is.
 */
async function unclonedFetch(input: Parameters<typeof fetch>[0], init: Parameters<typeof fetch>[1]): Promise<Response> {
  if (typeof init?.body !== 'string' || init.redirect !== undefined || 'window' in init) return fetch(input, init);
  try {
    return await fetch(input, { ...init, redirect: 'error', window: null });
  } catch (err) {
    if ((err as { cause?: { message?: string } }).cause?.message !== 'unexpected redirect') throw err;
    return fetch(input, init);
  }
}

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
