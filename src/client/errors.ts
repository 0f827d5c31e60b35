/**
 * Every failed call: `status` and the service's `{ error: { code, message } }` (or `HTTP_<status>` when the
 * answer was not the service's, e.g. a proxy's 502 page; status 0 when the client gave up waiting).
 */
export class AgentClientError extends Error {
  override readonly name = 'AgentClientError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }

  /** From a non-2xx answer and its (already parsed) body. */
  static from(response: Response, body: unknown): AgentClientError {
    const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
    if (typeof error?.code === 'string' && typeof error.message === 'string') {
      return new AgentClientError(response.status, error.code, error.message, error.details);
    }
    const text = typeof body === 'string' && body ? `: ${body.slice(0, 200)}` : '';
    return new AgentClientError(response.status, `HTTP_${response.status}`, `${response.status} ${response.statusText}${text}`);
  }
}
