/** A failure of the model endpoint (5xx, 408, 429, connection, time-out) — not a bug, not a cancellation. */
export function isModelUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { status?: unknown; code?: unknown; name?: unknown; cause?: unknown };
  if (e.code === 'MODEL_UNAVAILABLE') return true;
  if (e.name === 'AbortError' || e.name === 'APIUserAbortError') return false;
  if (typeof e.status === 'number') return e.status >= 500 || e.status === 408 || e.status === 429;
  if (typeof e.name === 'string' && /^(APIConnection\w*Error|TimeoutError|RateLimit\w*Error)$/.test(e.name)) return true;
  if (typeof e.code === 'string' && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|UND_ERR_\w+)$/.test(e.code)) return true;
  return e.cause !== undefined && e.cause !== err && isModelUnavailable(e.cause);
}
