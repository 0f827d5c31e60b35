import { z } from 'zod';

import {
  defineSettings,
  int,
  invalidConfiguration,
  list,
  optionalString,
  optionalUrl,
  type SettingsOf,
  variable,
} from '../config/settings';

/** Asymmetric JWS algorithms jose verifies; HMAC (HS*) and `none` are never accepted (no shared secrets). */
export const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** a claim name: what an issuer puts in a token (`tenant_id`, `org_id`, `https://example.com/tenant`) */
const claimName = (def: string) =>
  z
    .string()
    .trim()
    .min(1)
    .max(200)
    .regex(/^[^\s]+$/, 'a claim name without spaces')
    .default(def);

/** Bearer tokens (JWT) beside API keys: where the keys are, what a token must say, and how its claims map. */
export const tokenSettings = defineSettings({
  module: 'auth',
  variables: {
    AUTH_JWKS_URL: variable(
      optionalUrl(['https', 'http']),
      "the issuer's JSON Web Key Set: with it (or `AUTH_ISSUER`) `Authorization: Bearer <JWT>` is accepted beside API keys and every route but `/health/*` needs a key or a token; keys are cached and refetched when a token names an unknown `kid` (at most once per `AUTH_JWKS_COOLDOWN_S`); while it is unreachable the cached keys keep working, and without a usable one a token gets 503 `AUTH_JWKS_UNAVAILABLE`; `/health/ready` reports it under `checks.jwks`",
      'unset → from `AUTH_ISSUER`, else tokens off',
    ),
    AUTH_ISSUER: variable(
      optionalUrl(['https', 'http']),
      "the tokens' issuer: their `iss` must equal it; without `AUTH_JWKS_URL` the key set is found by OIDC discovery (`<issuer>/.well-known/openid-configuration` → `jwks_uri`)",
      'unset → `iss` not checked',
    ),
    AUTH_AUDIENCE: variable(
      optionalString,
      "comma-separated audiences; a token's `aud` must hold one of them (else 401 `TOKEN_AUDIENCE`); required with tokens on",
    ),
    AUTH_ALGORITHMS: variable(
      optionalString,
      `comma-separated JWS algorithms a token may be signed with (else 401 \`TOKEN_ALGORITHM\`), of ${ASYMMETRIC_ALGORITHMS.join(', ')}; \`none\` and HMAC (\`HS*\`) are refused at start`,
      'unset → RS256, PS256, ES256, EdDSA',
    ),
    AUTH_CLOCK_SKEW_S: variable(int(30, 0), 'seconds of clock difference tolerated on `exp`, `nbf` and `iat`'),
    AUTH_TENANT_CLAIM: variable(
      claimName('tenant_id'),
      "the claim holding the token's tenant (1–64 chars of `[A-Za-z0-9._-]`, e.g. `org_id`); missing or malformed → 401 `TOKEN_TENANT`",
    ),
    AUTH_USER_CLAIM: variable(claimName('sub'), "the claim naming the token's user inside its tenant; missing → 401 `TOKEN_INVALID`"),
    AUTH_SCOPE_PREFIX: variable(
      z.string().trim().max(100).default(''),
      'prefix of the scope names: `<prefix>read` (GET and searches), `<prefix>write` (creates, updates, deletes, runs; includes read), `<prefix>admin` (includes write), read from `scope` (space-separated), `scp` or `permissions`; a token without the needed one gets 403 `INSUFFICIENT_SCOPE`',
      'empty → `read`, `write`, `admin`',
    ),
    AUTH_USER_ISOLATION: variable(
      z.enum(['owner', 'tenant']).default('owner'),
      "what a user (a token's, or langgraph.json custom auth's) sees of its tenant where no custom auth handler decides: `owner` — the threads (v1 sessions), runs, assistants, crons and store items it created (another user's are 404; the built-in assistants stay everyone's); `tenant` — everything of the tenant. A token with `<prefix>admin`, and an API key, always see the whole tenant; another tenant's resources are never seen",
    ),
    AUTH_JWKS_CACHE_S: variable(int(600, 0), 'seconds the key set is used before it is fetched again (on the next token)'),
    AUTH_JWKS_COOLDOWN_S: variable(
      int(30, 0),
      'seconds after a fetch of the key set before an unknown `kid` (or an unreachable endpoint) makes it fetch again',
    ),
  },
  build: (e) => ({
    /** bearer tokens: unset `jwksUrl` and `issuer` → tokens off */
    tokens: {
      jwksUrl: e.AUTH_JWKS_URL,
      issuer: e.AUTH_ISSUER,
      audiences: audiences(e.AUTH_AUDIENCE, Boolean(e.AUTH_JWKS_URL || e.AUTH_ISSUER)),
      algorithms: algorithms(e.AUTH_ALGORITHMS),
      clockSkewS: e.AUTH_CLOCK_SKEW_S,
      tenantClaim: e.AUTH_TENANT_CLAIM,
      userClaim: e.AUTH_USER_CLAIM,
      scopePrefix: e.AUTH_SCOPE_PREFIX,
      userIsolation: e.AUTH_USER_ISOLATION,
      jwksCacheMs: e.AUTH_JWKS_CACHE_S * 1000,
      jwksCooldownMs: e.AUTH_JWKS_COOLDOWN_S * 1000,
    },
  }),
});

function audiences(spec: string | undefined, tokensOn: boolean): string[] {
  const out = list(spec);
  if (tokensOn && out.length === 0) {
    // without it a token the same issuer minted for any other application would be accepted here
    throw invalidConfiguration('AUTH_AUDIENCE is required with AUTH_JWKS_URL or AUTH_ISSUER (the audience tokens for this service carry)');
  }
  return out;
}

function algorithms(spec: string | undefined): string[] {
  const out = list(spec);
  if (out.length === 0) return ['RS256', 'PS256', 'ES256', 'EdDSA'];
  for (const alg of out) {
    if (!ASYMMETRIC_ALGORITHMS.includes(alg)) {
      throw invalidConfiguration(
        `AUTH_ALGORITHMS: "${alg.slice(0, 20)}" is not one of ${ASYMMETRIC_ALGORITHMS.join(', ')} (none and HS* are never accepted)`,
      );
    }
  }
  return out;
}

declare module '../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: this slice's fields on AppConfig
  interface AppConfig extends SettingsOf<typeof tokenSettings> {}
}
