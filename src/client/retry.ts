export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  maxRetries?: number;
  /** First backoff without `retry-after`, doubled each time (default 500 ms). */
  baseDelayMs?: number;
  /** No single wait is longer, whatever `retry-after` says (default 30 s). */
  maxDelayMs?: number;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** `retry-after` as seconds or an HTTP date, in ms; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Whether a request may be sent again: a 429 was refused before any work started, so always; a 503 may have
 * come after the service took the request, so only when repeating it is harmless (idempotent methods, or a POST
 * with `Idempotency-Key`, which the service answers with the first run).
 */
function retryable(request: Request, status: number): boolean {
  if (status === 429) return true;
  return status === 503 && (IDEMPOTENT.has(request.method) || request.headers.has('idempotency-key'));
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/** A fetch that answers 429/503 by waiting (`retry-after`, else exponential backoff) and trying again, a bounded number of times. */
export function retryingFetch(fetchFn: (request: Request) => Promise<Response>, options: RetryOptions = {}) {
  const { maxRetries = 3, baseDelayMs = 500, maxDelayMs = 30_000 } = options;
  return async (request: Request): Promise<Response> => {
    for (let attempt = 0; ; attempt++) {
      // a body can be read once: keep a copy for the next attempt
      const spare = attempt < maxRetries ? request.clone() : undefined;
      const response = await fetchFn(request);
      if (!spare || !retryable(request, response.status)) return response;
      const wait = Math.min(maxDelayMs, retryAfterMs(response.headers.get('retry-after')) ?? baseDelayMs * 2 ** attempt);
      await response.body?.cancel();
      await sleep(wait, request.signal);
      request = spare;
    }
  };
}
