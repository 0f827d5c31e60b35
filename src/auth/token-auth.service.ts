import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { decodeProtectedHeader, type JWTPayload, jwtVerify } from 'jose';

import { AppConfig } from '../config/app-config';
import { DomainException } from '../core/errors';
import { TokenRejectedException, type TokenRejection } from './auth-errors';
import { JwksKeys } from './jwks-keys';
import { permissionsOf, type RequestPrincipal } from './principal';
import { TENANT_ID_PATTERN } from './tenant';

/** A JWT's shape: three base64url parts (the last empty for `alg: none`), the first a JSON header with `alg`. */
export function looksLikeJwt(credential: string): boolean {
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(credential)) return false;
  try {
    return typeof decodeProtectedHeader(credential).alg === 'string';
  } catch {
    return false;
  }
}

/**
 * Bearer tokens (JWT) signed by the issuer of `AUTH_JWKS_URL` / `AUTH_ISSUER`: signature against the issuer's
 * key set, algorithm, `aud`, `iss`, `exp` (required), `nbf`, with `AUTH_CLOCK_SKEW_S` of leeway; then the
 * tenant, user and scope claims make the principal. Every refusal is a 401 with a reason code; a key set that
 * cannot be had is a 503 (JwksKeys). Tokens are never logged.
 */
@Injectable()
export class TokenAuth implements OnApplicationBootstrap {
  private readonly logger = new Logger('Auth');
  readonly keys?: JwksKeys;

  constructor(private readonly config: AppConfig) {
    const t = config.tokens;
    if (t.jwksUrl || t.issuer) this.keys = new JwksKeys(t);
  }

  /** whether bearer tokens are accepted (`AUTH_JWKS_URL` or `AUTH_ISSUER` set) */
  enabled(): boolean {
    return this.keys !== undefined;
  }

  onApplicationBootstrap(): void {
    if (!this.keys) return;
    const t = this.config.tokens;
    this.logger.log(
      `Bearer tokens accepted: keys from ${t.jwksUrl ?? `${t.issuer} (OIDC discovery)`}, audience ${t.audiences.join(' or ')}, algorithms ${t.algorithms.join(', ')}`,
    );
  }

  /** The principal of a valid token; throws TokenRejectedException (401) or JwksUnavailableException (503). */
  async verify(token: string): Promise<RequestPrincipal> {
    const t = this.config.tokens;
    if (!this.keys) throw new TokenRejectedException('TOKEN_INVALID', 'bearer tokens are not accepted by this service');
    const alg = algorithmOf(token);
    if (!t.algorithms.includes(alg)) {
      throw new TokenRejectedException('TOKEN_ALGORITHM', `tokens signed with "${alg.slice(0, 20)}" are not accepted (AUTH_ALGORITHMS)`);
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keys.resolve, {
        algorithms: t.algorithms,
        audience: t.audiences,
        ...(t.issuer ? { issuer: t.issuer } : {}),
        clockTolerance: t.clockSkewS,
        requiredClaims: ['exp'],
      }));
    } catch (err) {
      if (err instanceof DomainException) throw err;
      throw rejectionOf(err);
    }
    return this.principalOf(payload);
  }

  private principalOf(claims: JWTPayload): RequestPrincipal {
    const t = this.config.tokens;
    const tenant = claims[t.tenantClaim];
    if (typeof tenant !== 'string' || !TENANT_ID_PATTERN.test(tenant)) {
      throw new TokenRejectedException(
        'TOKEN_TENANT',
        `the token has no tenant: its claim "${t.tenantClaim}" (AUTH_TENANT_CLAIM) is missing or not 1-64 chars of [A-Za-z0-9._-]`,
      );
    }
    const user = claims[t.userClaim];
    if (typeof user !== 'string' || user.length === 0 || user.length > 256) {
      throw new TokenRejectedException('TOKEN_INVALID', `the token has no user: its claim "${t.userClaim}" (AUTH_USER_CLAIM) is missing`);
    }
    return { tenantId: tenant, userId: user, permissions: permissionsOf(claims, t.scopePrefix) };
  }
}

function algorithmOf(token: string): string {
  try {
    const alg = decodeProtectedHeader(token).alg;
    if (typeof alg === 'string') return alg;
  } catch {
    /* below */
  }
  throw new TokenRejectedException('TOKEN_INVALID', 'the bearer token is not a well-formed JWT');
}

const CLAIM_CODES: Record<string, TokenRejection> = { aud: 'TOKEN_AUDIENCE', iss: 'TOKEN_ISSUER', nbf: 'TOKEN_NOT_YET_VALID' };

/** jose's error → the 401's reason code (its messages say nothing secret: a claim name and what was wrong). */
function rejectionOf(err: unknown): TokenRejectedException {
  const e = err as { code?: string; claim?: string; message?: string };
  switch (e.code) {
    case 'ERR_JWT_EXPIRED':
      return new TokenRejectedException('TOKEN_EXPIRED', 'the token has expired');
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return new TokenRejectedException(CLAIM_CODES[e.claim ?? ''] ?? 'TOKEN_INVALID', `the token's claims are not accepted: ${e.message}`);
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return new TokenRejectedException('TOKEN_ALGORITHM', 'the token is signed with an algorithm that is not accepted (AUTH_ALGORITHMS)');
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return new TokenRejectedException('TOKEN_KEY_UNKNOWN', "no key of the issuer's key set matches the token's kid and algorithm");
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return new TokenRejectedException('TOKEN_SIGNATURE', "the token's signature does not verify");
    default:
      return new TokenRejectedException('TOKEN_INVALID', 'the bearer token is not a valid JWT');
  }
}
