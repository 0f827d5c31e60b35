import { DomainException } from '../core/errors';

/** Why a bearer token was refused (`error.code` of the 401). */
export type TokenRejection =
  | 'TOKEN_EXPIRED'
  | 'TOKEN_NOT_YET_VALID'
  | 'TOKEN_AUDIENCE'
  | 'TOKEN_ISSUER'
  | 'TOKEN_ALGORITHM'
  | 'TOKEN_KEY_UNKNOWN'
  | 'TOKEN_SIGNATURE'
  | 'TOKEN_TENANT'
  | 'TOKEN_INVALID';

/** a quoted-string of a header: printable ASCII only (a header value with anything else would fail the answer) */
const quoted = (text: string) => text.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '?');

/** 401 for a token that is not valid here (RFC 6750: `WWW-Authenticate: Bearer error="invalid_token"`). */
export class TokenRejectedException extends DomainException {
  constructor(code: TokenRejection, message: string) {
    super(code, message, 401);
    this.headers = { 'WWW-Authenticate': `Bearer error="invalid_token", error_description="${quoted(message)}"` };
  }
}

/** 401 without a usable key or token. */
export class ApiKeyRequiredException extends DomainException {
  constructor(tokens = false) {
    super(
      'UNAUTHORIZED',
      tokens
        ? 'a valid API key (x-api-key, or Authorization: Bearer <key>) or bearer token (Authorization: Bearer <JWT>) is required'
        : 'a valid API key is required (Authorization: Bearer <key> or x-api-key)',
      401,
    );
    this.headers = { 'WWW-Authenticate': 'Bearer' };
  }
}

/** 403 for a token whose scopes do not include what the route needs. */
export class InsufficientScopeException extends DomainException {
  constructor(scope: string) {
    super('INSUFFICIENT_SCOPE', `this request needs the scope "${scope}", which the token does not carry`, 403, { required_scope: scope });
    this.headers = { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${quoted(scope)}"` };
  }
}

/** 503 while no key for a token can be had: the key set (or the issuer's discovery document) is unreachable. */
export class JwksUnavailableException extends DomainException {
  constructor(setting: 'AUTH_JWKS_URL' | 'AUTH_ISSUER', reason: string) {
    super(
      'AUTH_JWKS_UNAVAILABLE',
      `tokens cannot be checked right now: the key set of ${setting} is unreachable (${reason}); try again shortly`,
      503,
      {
        setting,
      },
    );
  }
}

/** 503 while API keys cannot be checked (the `api_keys` table is unreachable). */
export class KeysUnavailableException extends DomainException {
  constructor() {
    super('DATABASE_UNAVAILABLE', 'keys cannot be checked right now; try again shortly', 503);
  }
}

/** 401 for a request that carries two different credentials: it is refused, never resolved by precedence. */
export class AmbiguousCredentialsException extends DomainException {
  constructor(which: string) {
    super('CREDENTIALS_AMBIGUOUS', `the request carries two different credentials (${which}); send exactly one`, 401);
    this.headers = { 'WWW-Authenticate': 'Bearer' };
  }
}

/** 401 for an `Authorization` header that is not `Bearer <credential>` while credentials are checked. */
export class UnsupportedCredentialException extends DomainException {
  constructor() {
    super('UNAUTHORIZED', 'the Authorization header is not "Bearer <key or token>"', 401);
    this.headers = { 'WWW-Authenticate': 'Bearer' };
  }
}

/** 400 for a request path that is ambiguous (dot segments, encoded slashes or dots, backslashes, …): refused before anything reads it. */
export class InvalidPathException extends DomainException {
  constructor(why: string) {
    super('INVALID_PATH', `the request path is not accepted: ${why}`, 400);
  }
}

/** 400 for a malformed `Host` or forwarded header (`X-Forwarded-Host`, `X-Forwarded-Proto`) from a trusted proxy. */
export class InvalidHostException extends DomainException {
  constructor(header: string, expected = 'a host name (or IP address) with an optional port') {
    super('INVALID_HOST', `the ${header} header is not ${expected}`, 400, { header });
  }
}

/** 403 for an operator's action on the whole tenant (`/internal/truncate`) by a caller without `admin`. */
export class OperatorRequiredException extends DomainException {
  constructor(action: string) {
    super('FORBIDDEN', `"${action}" is an operator's action: it needs an API key or a token with admin`, 403);
  }
}

/** 400/403 for a request on memories that names no user it may reach (memories are always one user's). */
export class MemoryUserException extends DomainException {
  constructor(reason: 'none' | 'other') {
    super(
      reason === 'none' ? 'USER_REQUIRED' : 'FORBIDDEN',
      reason === 'none'
        ? 'memories belong to a user: this caller has none, so name one with user_id (an API key or an admin token may)'
        : "only the tenant's operator (an API key, a token with admin) may name another user's memories",
      reason === 'none' ? 400 : 403,
    );
  }
}
