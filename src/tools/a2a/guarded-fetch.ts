import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

import { openSafe, type SafeFetchOptions } from '../general/network-guard';
import { ToolError } from '../general/tool-error';

/** Credentials sent only to the origin they were configured for (a card cannot send them elsewhere). */
export interface OriginHeaders {
  origin: string;
  headers: Readonly<Record<string, string>>;
}

/**
 * A `fetch` for the A2A SDK (its card resolver and transports) built on the SSRF guard: every request — the card,
 * each call, a stream — goes through `openSafe` (the host checked, the connection pinned to the checked addresses,
 * redirects re-checked), within `opts.timeoutMs` and the caller's signal. The body is handed over as a stream that
 * fails once more than `opts.maxBytes` arrived, so a stream past the cap is aborted as it is read.
 */
export function guardedFetch(opts: SafeFetchOptions, credentials?: OriginHeaders): typeof fetch {
  const guarded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    if (credentials && url.origin === credentials.origin) Object.assign(headers, credentials.headers);
    if (init?.body != null && typeof init.body !== 'string')
      throw new ToolError('refused: only text request bodies are sent to a remote agent');
    const body = init?.body ?? undefined;
    const opened = await openSafe(url, { method: init?.method, headers, body, signal: init?.signal ?? undefined }, opts);
    const status = opened.res.statusCode ?? 502;
    const empty = status === 204 || status === 304 || init?.method === 'HEAD';
    if (empty) opened.res.resume();
    const stream = empty ? null : capped(opened.res, opts.maxBytes, opened.fail);
    return new Response(stream, { status, headers: responseHeaders(opened.res.headers) });
  };
  return guarded as typeof fetch;
}

/** The body as a web stream that errors (and drops the connection) once more than `maxBytes` arrived. */
export function capped(res: IncomingMessage, maxBytes: number, fail: (err: unknown) => unknown = (e) => e): ReadableStream<Uint8Array> {
  const tooLarge = () => new ToolError(`response too large: more than ${maxBytes} bytes`);
  const declared = Number(res.headers['content-length']);
  const chunks = res[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let total = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
        const next = await chunks.next();
        if (next.done) return controller.close();
        total += next.value.length;
        if (total > maxBytes) throw tooLarge();
        controller.enqueue(new Uint8Array(next.value));
      } catch (err) {
        res.destroy();
        controller.error(fail(err));
      }
    },
    cancel() {
      res.destroy();
    },
  });
}

function responseHeaders(headers: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
  }
  return out;
}
