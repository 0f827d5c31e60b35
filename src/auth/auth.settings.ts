import { z } from 'zod';

import { bool, defineSettings, int, invalidConfiguration, list, optionalString, type SettingsOf, variable } from '../config/settings';
import { isProxyEntry } from './request-edge';

/** Tenancy: API keys, what stays open with keys, rate limits, CORS, the CSP's https upgrade, input depth. */
export const authSettings = defineSettings({
  module: 'auth',
  variables: {
    API_KEYS: variable(
      optionalString,
      "`tenant:key,tenant:key` (tenant: 1–64 chars of `[A-Za-z0-9._-]`, key ≥ 16 chars). With any key configured (here or in the `api_keys` table, see `npm run api-keys -- create --tenant t`; a revoked key still counts, so revoking the last one leaves the service closed), every route but `/health/*` needs `Authorization: Bearer <key>` or `x-api-key` (else 401 `UNAUTHORIZED`), and each key's tenant sees only its own sessions, jobs, contracts, documents, retrieval results and cache entries",
      'unset → one tenant `default`, no authentication (logged at start-up)',
    ),
    METRICS_PUBLIC: variable(bool(false), 'serve `/metrics` without a key when keys are configured'),
    DOCS_PUBLIC: variable(bool(false), 'serve `/docs` without a key when keys are configured'),
    RATE_LIMIT_PER_MINUTE: variable(
      int(600, 0),
      'requests per minute per API key, counted in Redis when `REDIS_URL` is set (shared by every API process); then 429 `TOO_MANY_REQUESTS` with `retry-after`; `0` = off; requests without a key (no keys configured, `/health`) are not limited',
    ),
    TRUSTED_PROXIES: variable(
      optionalString,
      "comma-separated IP addresses or CIDR ranges (or `loopback`) of the reverse proxies whose `X-Forwarded-*` / `Forwarded` headers are believed (client address, scheme, host); from any other peer those headers are dropped before anything reads them. A trusted proxy's malformed `X-Forwarded-Host` / `X-Forwarded-Proto` is 400 `INVALID_HOST`",
      'unset → no proxy is trusted',
    ),
    CORS_ORIGINS: variable(optionalString, 'comma-separated origins allowed by CORS', 'unset → no CORS headers'),
    CSP_UPGRADE_INSECURE_REQUESTS: variable(
      bool(false),
      "add `upgrade-insecure-requests` to every response's Content-Security-Policy (for a service reachable only over HTTPS, e.g. behind a TLS proxy); otherwise it is sent only on requests that came over HTTPS, so `/console` and `/docs` work over plain HTTP on any host name",
    ),
    MAX_JSON_DEPTH: variable(
      int(32, 2),
      'deepest accepted JSON nesting; deeper bodies, NUL characters, lone surrogates and `__proto__`/`constructor`/`prototype` keys are 400 `INVALID_INPUT` before validation',
    ),
    STREAM_TICKET_SECRET: variable(
      optionalString,
      "the HMAC secret (at least 32 characters) that signs stream tickets (`POST /threads/{id}/stream/ticket`, the credential of a browser's WebSocket); set the same value on every host so any API process accepts a ticket another issued",
      "unset → a random secret per start (shared by one cluster's processes)",
    ),
    STREAM_TICKET_TTL_S: variable(
      z.coerce.number().int().min(5).max(3600).default(60),
      'how long a stream ticket may open a WebSocket, in seconds (5–3600); a socket already open stays open',
    ),
  },
  build: (e) => ({
    /** tenancy: `API_KEYS` as tenant:key pairs, what stays open with keys, per-key rate limit (0 = off), CORS, CSP upgrade, input depth */
    security: {
      apiKeys: parseApiKeys(e.API_KEYS),
      metricsPublic: e.METRICS_PUBLIC,
      docsPublic: e.DOCS_PUBLIC,
      rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
      trustedProxies: parseTrustedProxies(e.TRUSTED_PROXIES),
      corsOrigins: list(e.CORS_ORIGINS),
      upgradeInsecureRequests: e.CSP_UPGRADE_INSECURE_REQUESTS,
      maxJsonDepth: e.MAX_JSON_DEPTH,
    },
    /** stream tickets: their HMAC secret (undefined → a random one per start) and lifetime */
    streamTickets: { secret: ticketSecret(e.STREAM_TICKET_SECRET), ttlS: e.STREAM_TICKET_TTL_S },
  }),
});

/** STREAM_TICKET_SECRET: long enough to be a key; never echoed */
function ticketSecret(secret: string | undefined): string | undefined {
  if (secret !== undefined && secret.length < 32) throw invalidConfiguration('STREAM_TICKET_SECRET is shorter than 32 characters');
  return secret;
}

/** TRUSTED_PROXIES: IP addresses, CIDR ranges or `loopback`; anything else stops the start, named. */
function parseTrustedProxies(spec: string | undefined): string[] {
  const entries = list(spec);
  const bad = entries.find((e) => !isProxyEntry(e));
  if (bad !== undefined)
    throw invalidConfiguration(`TRUSTED_PROXIES entry "${bad.slice(0, 64)}" is not an IP address, a CIDR range or "loopback"`);
  return entries;
}

/** tenancy: `tenant:key,tenant:key`; tenant ids are 1–64 chars of [A-Za-z0-9._-], keys at least 16 chars. */
function parseApiKeys(spec: string | undefined): Array<{ tenant: string; key: string }> {
  return list(spec).map((pair, i) => {
    const at = pair.indexOf(':');
    const tenant = pair.slice(0, at);
    const key = pair.slice(at + 1);
    if (at < 1 || !/^[A-Za-z0-9._-]{1,64}$/.test(tenant) || key.length < 16) {
      // never echo the pair: it holds a secret
      throw invalidConfiguration(`API_KEYS entry ${i + 1} is not tenant:key (tenant [A-Za-z0-9._-], key ≥ 16 chars)`);
    }
    return { tenant, key };
  });
}

declare module '../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: this slice's fields on AppConfig
  interface AppConfig extends SettingsOf<typeof authSettings> {}
}
