import { type Dispatcher, request } from 'undici';

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
  const res = await modelCallFetch(input, init);
  if (res.ok || !res.headers.get('content-type')?.includes('json')) return recordingPhases() ? timedBody(res, started) : res;
  const text = await res.text();
  return new Response(rewrapError(text), { status: res.status, statusText: res.statusText, headers: res.headers });
};

/** statuses whose response has no body (the Response constructor refuses one) */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * A model call, by the lightest way that gives the client what Node's fetch would. Node's fetch (undici's WHATWG
 * layer) builds a Request and a Response with web streams around each call, copies the request, and parses the
 * reply through them: at two calls a turn, about 9 % of a react turn's event-loop CPU under load. A JSON call that
 * is not streamed — a string body without `"stream":true`, which the client writes only for a streamed call — is
 * sent with undici's `request` (the same HTTP client under Node's fetch, without the WHATWG layer) and handed back
 * as a Response of its text. A redirect is followed by sending the call again through fetch, as the caller asked.
 * Anything else (a streamed call, a form body, a redirect mode the caller chose) goes through fetch as it is.
 */
async function modelCallFetch(input: Parameters<typeof fetch>[0], init: Parameters<typeof fetch>[1]): Promise<Response> {
  if (typeof init?.body !== 'string' || init.body.includes('"stream":true') || init.redirect !== undefined || input instanceof Request)
    return fetch(input, init);
  const res = await request(String(input), {
    // as fetch sends a standard method (and the client asks): upper case
    method: (init.method ?? 'POST').toUpperCase() as Dispatcher.HttpMethod,
    headers: headersOf(init.headers),
    body: init.body,
    signal: init.signal ?? undefined,
  });
  if (res.statusCode >= 300 && res.statusCode < 400 && res.headers.location !== undefined) {
    await res.body.dump();
    return fetch(input, init);
  }
  const text = await res.body.text();
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  return new Response(NULL_BODY.has(res.statusCode) ? null : text, { status: res.statusCode, headers });
}

/** fetch's headers init as undici's request takes them (the client passes a Headers or a plain object) */
function headersOf(init: NonNullable<Parameters<typeof fetch>[1]>['headers']): Record<string, string> {
  if (!init) return {};
  if (init instanceof Headers || Array.isArray(init)) return Object.fromEntries(init as Iterable<[string, string]>);
  return init as Record<string, string>;
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
