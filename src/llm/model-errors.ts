import { isBudgetExceeded } from './run-budget';

/**
 * Typed model failures. Every model call that could not produce an answer (after the client's own retries,
 * or refused at once by an open circuit breaker) ends in a ModelUnavailableError, so agents can take their
 * no-model paths and runs end with `MODEL_UNAVAILABLE`. Cancellation is not a failure: an aborted call
 * rethrows its abort error unchanged.
 */
export class ModelUnavailableError extends Error {
  readonly code = 'MODEL_UNAVAILABLE' as const;
  /** true when the call was not even attempted: the endpoint's circuit breaker is open */
  readonly breakerOpen: boolean;
  /** HTTP status of the last failed attempt, when there was one */
  readonly status?: number;

  constructor(message: string, opts: { cause?: unknown; breakerOpen?: boolean; status?: number } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ModelUnavailableError';
    this.breakerOpen = opts.breakerOpen ?? false;
    this.status = opts.status ?? statusOf(opts.cause);
  }
}

const CONNECTION_ERRORS = new Set(['APIConnectionError', 'APIConnectionTimeoutError', 'TimeoutError', 'FetchError', 'ConnectTimeoutError']);
const CONNECTION_CODES = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|UND_ERR_\w+)$/;

/** The HTTP status an OpenAI-client (or LangChain-wrapped) error carries, if any. */
export function statusOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { status?: unknown; response?: { status?: unknown } };
  if (typeof e.status === 'number') return e.status;
  if (typeof e.response?.status === 'number') return e.response.status;
  return undefined;
}

/**
 * Is this a failure of the model endpoint (as opposed to a bug or a cancellation)? A ModelUnavailableError,
 * or an OpenAI client error for a connection problem, a timeout, a rate limit (429 after the retries) or a
 * 5xx. A 4xx other than 408/429 is the request's fault, not the endpoint's, and an abort is not a failure.
 */
export function isModelUnavailable(err: unknown): boolean {
  if (err instanceof ModelUnavailableError) return true;
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; name?: unknown; cause?: unknown; lc_error_code?: unknown };
  if (e.code === 'MODEL_UNAVAILABLE') return true;
  if (isAbortError(err)) return false;
  const status = statusOf(err);
  if (status !== undefined) return status >= 500 || status === 408 || status === 429;
  if (e.lc_error_code === 'MODEL_RATE_LIMIT') return true;
  // the OpenAI client's error classes keep `name === 'Error'`: look at the class too
  const names = [e.name, (err as { constructor?: { name?: unknown } }).constructor?.name].filter((n): n is string => typeof n === 'string');
  if (names.some((n) => CONNECTION_ERRORS.has(n) || /^RateLimit\w*Error$/.test(n))) return true;
  if (typeof e.code === 'string' && CONNECTION_CODES.test(e.code)) return true;
  return e.cause !== undefined && e.cause !== err && isModelUnavailable(e.cause);
}

/** A cancellation: the caller's signal fired (or the client reports a user abort). */
export function isAbortError(err: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return true;
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { name?: unknown; message?: unknown };
  const cls = (err as { constructor?: { name?: unknown } }).constructor?.name;
  return e.name === 'AbortError' || cls === 'APIUserAbortError' || (typeof e.message === 'string' && e.message.startsWith('AbortError'));
}

/** The error an agent should see: aborts and spent run budgets unchanged, everything else as a ModelUnavailableError. */
export function toModelUnavailable(err: unknown, signal?: AbortSignal): unknown {
  if (err instanceof ModelUnavailableError || isAbortError(err, signal) || isBudgetExceeded(err)) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new ModelUnavailableError(`model call failed: ${message.slice(0, 300)}`, { cause: err });
}

/** HTTP 400/422 whose text matches: the endpoint refused a request feature (tools, response_format). */
export function isRejection(err: unknown, pattern: RegExp): boolean {
  const status = statusOf(err);
  if (status !== 400 && status !== 422) return false;
  return pattern.test(errorText(err));
}

/** The message plus the body's `error.message` (the OpenAI client puts the body in `error`). */
export function errorText(err: unknown): string {
  if (typeof err !== 'object' || err === null) return String(err);
  const e = err as { message?: unknown; error?: { message?: unknown } | unknown };
  const body = (e.error as { message?: unknown } | undefined)?.message;
  return [e.message, body, typeof e.error === 'string' ? e.error : undefined].filter((x) => typeof x === 'string').join(' ');
}

/**
 * What a connection error came from, under the client's "Connection error." (its `cause`, or the cause of fetch's
 * "fetch failed"): the innermost error's code and message, e.g. `UND_ERR_SOCKET: other side closed`, or only the
 * message when it holds the code (`connect ECONNREFUSED 127.0.0.1:9`). Undefined when there is none. Transport
 * errors carry no credentials; the text is cut at 160 characters all the same.
 */
export function transportCause(err: unknown): string | undefined {
  let inner: { code?: unknown; message?: unknown } | undefined;
  let next = (err as { cause?: unknown } | null)?.cause;
  for (let depth = 0; depth < 4 && typeof next === 'object' && next !== null; depth++) {
    inner = next as { code?: unknown; message?: unknown };
    next = (next as { cause?: unknown }).cause;
  }
  if (!inner) return undefined;
  const code = typeof inner.code === 'string' ? inner.code : undefined;
  const message = typeof inner.message === 'string' && inner.message !== '' ? inner.message : undefined;
  const text = code && message && !message.includes(code) ? `${code}: ${message}` : (message ?? code);
  return text?.slice(0, 160);
}

/**
 * An endpoint that did not answer (no HTTP status: refused, unresolvable, timed out, the connection closed): the
 * error names it — the setting and the URL, never the key — and what the connection did, so "Connection error." in a
 * run's error says where it tried and why it failed.
 */
export function namingTheEndpoint(err: unknown, baseUrl: string | undefined): unknown {
  if (!(err instanceof Error) || !isModelUnavailable(err) || statusOf(err) !== undefined || !baseUrl || err.message.includes(baseUrl))
    return err;
  const why = transportCause(err);
  err.message = `${err.message} (LLM_BASE_URL ${baseUrl} did not answer${why ? `: ${why}` : ''})`;
  return err;
}
