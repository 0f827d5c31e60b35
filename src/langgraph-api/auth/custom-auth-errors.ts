import { DomainException } from '../../core/errors';

/** A refusal of the custom auth (an `HTTPException` it threw, or a handler's `false`): its status, message and headers. */
export class CustomAuthException extends DomainException {
  /** `text`: the body a platform client gets (the message, else empty, as the platform answers a bare refusal) */
  constructor(status: number, message: string, headers?: Record<string, string>, text = message) {
    super(status === 401 ? 'UNAUTHENTICATED' : status === 403 ? 'FORBIDDEN' : 'CUSTOM_AUTH', message, status, undefined, text);
    if (headers) this.headers = headers;
  }
}

/** The custom auth's user is not an identity, or its tenant is not a tenant id. */
export class InvalidAuthResultException extends DomainException {
  constructor(why: string) {
    super('CUSTOM_AUTH_INVALID', why, 500);
  }
}

/**
 * A resource handler's filter the service cannot apply exactly: a 500 that says nothing of the handler or its
 * filter (both are logged), as any internal error answers.
 */
export class AuthFilterRefusedException extends DomainException {
  constructor() {
    super('INTERNAL_ERROR', 'internal error', 500);
  }
}

const REASONS: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' };

/** An error the custom auth threw with a `status` (the SDK's `HTTPException`) as the refusal it means; others as they are. */
export function asRefusal(err: unknown): unknown {
  const e = err as { status?: unknown; message?: unknown; headers?: unknown } | null;
  if (!e || typeof e !== 'object' || typeof e.status !== 'number' || !('headers' in e)) return err;
  const message = typeof e.message === 'string' && e.message ? e.message : (REASONS[e.status] ?? 'Unauthorized');
  const headers = e.headers && typeof e.headers === 'object' ? headersOf(e.headers) : undefined;
  return new CustomAuthException(e.status, message, headers);
}

function headersOf(h: object): Record<string, string> {
  if (h instanceof Headers) return Object.fromEntries(h.entries());
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)]));
}
