import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  type FlattenedJWSInput,
  type JSONWebKeySet,
  type JWSHeaderParameters,
} from 'jose';

import { JwksUnavailableException } from './auth-errors';

type RemoteSet = ReturnType<typeof createRemoteJWKSet>;
type Key = Awaited<ReturnType<RemoteSet>>;

/** What `JwksKeys` needs of the settings (`config.tokens`). */
export interface JwksSource {
  jwksUrl?: string;
  issuer?: string;
  jwksCacheMs: number;
  jwksCooldownMs: number;
}

/** The key set's state for `/health/ready`. */
export interface JwksState {
  url?: string;
  keys: number;
  fetched_at?: string;
  last_error?: string;
}

const FETCH_TIMEOUT_MS = 3000;
/** jose's answers that a token names no key of the set (not that the set is unreachable) */
const NO_KEY = new Set(['ERR_JWKS_NO_MATCHING_KEY', 'ERR_JWKS_MULTIPLE_MATCHING_KEYS']);

/**
 * The issuer's signing keys: jose's remote key set (cached for `jwksCacheMs`, refetched when a token names an
 * unknown `kid`, at most once per `jwksCooldownMs`), found by OIDC discovery when only the issuer is set.
 * While the endpoint is unreachable the last fetched set keeps answering; without a key for the token that is
 * a 503 naming the setting, never a 401 (the key may well exist).
 */
export class JwksKeys {
  private remote?: RemoteSet;
  private url?: string;
  private fetchedAt?: number;
  private failedAt?: number;
  private lastError?: string;

  constructor(private readonly source: JwksSource) {}

  /** the setting an operator fixes when the keys cannot be had */
  get setting(): 'AUTH_JWKS_URL' | 'AUTH_ISSUER' {
    return this.source.jwksUrl ? 'AUTH_JWKS_URL' : 'AUTH_ISSUER';
  }

  /** jose's key resolver (`jwtVerify(token, keys.resolve, …)`) */
  readonly resolve = (header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<Key> => this.keyFor(header, token);

  state(): JwksState {
    return {
      url: this.url,
      keys: this.cached()?.keys.length ?? 0,
      ...(this.fetchedAt ? { fetched_at: new Date(this.fetchedAt).toISOString() } : {}),
      ...(this.lastError ? { last_error: this.lastError } : {}),
    };
  }

  /** Readiness: a key set is at hand, fetched now when there is none yet (or the last fetch failed). */
  async ready(): Promise<boolean> {
    if (this.cached() && !this.lastError) return true;
    try {
      await (await this.remoteSet()).reload();
    } catch (err) {
      this.failed(err);
    }
    return Boolean(this.cached());
  }

  private async keyFor(header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<Key> {
    const remote = await this.remoteSet().catch((err: unknown) => {
      throw this.unavailable(err);
    });
    // the endpoint failed a moment ago: answer from the last set rather than wait on it again for each request
    if (this.cached() && this.failedAt !== undefined && Date.now() - this.failedAt < this.source.jwksCooldownMs) {
      return this.fromCache(header, token);
    }
    try {
      return await remote(header, token);
    } catch (err) {
      if (NO_KEY.has((err as { code?: string }).code ?? '')) throw err;
      this.failed(err);
      return this.fromCache(header, token);
    }
  }

  /** The last fetched set, for a token while the endpoint is down; no key there → 503 (it may be a new one). */
  private async fromCache(header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<Key> {
    const cached = this.cached();
    if (!cached) throw this.unavailable(this.lastError);
    try {
      return await createLocalJWKSet(cached)(header, token);
    } catch (err) {
      if (NO_KEY.has((err as { code?: string }).code ?? '')) throw this.unavailable(this.lastError);
      throw err;
    }
  }

  private cached(): JSONWebKeySet | undefined {
    return this.remote?.jwks();
  }

  private async remoteSet(): Promise<RemoteSet> {
    if (this.remote) return this.remote;
    const url = this.source.jwksUrl ?? (await discoverJwksUri(this.source.issuer!));
    this.url = url;
    this.remote = createRemoteJWKSet(new URL(url), {
      cacheMaxAge: this.source.jwksCacheMs,
      cooldownDuration: this.source.jwksCooldownMs,
      timeoutDuration: FETCH_TIMEOUT_MS,
      [customFetch]: (input: string | URL | Request, init?: RequestInit) => this.fetchSet(input, init),
    });
    return this.remote;
  }

  /** jose's fetch of the set, noting when it last answered */
  private async fetchSet(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const res = await fetch(input, init);
    if (res.status === 200) this.succeeded();
    return res;
  }

  private succeeded(): void {
    this.fetchedAt = Date.now();
    this.failedAt = undefined;
    this.lastError = undefined;
  }

  private failed(err: unknown): void {
    this.failedAt = Date.now();
    this.lastError = reasonOf(err);
  }

  private unavailable(err: unknown): JwksUnavailableException {
    if (err !== undefined && typeof err !== 'string') this.failed(err);
    return new JwksUnavailableException(this.setting, this.lastError ?? reasonOf(err));
  }
}

/** OIDC discovery: `<issuer>/.well-known/openid-configuration` names the key set (`jwks_uri`) of that same issuer. */
export async function discoverJwksUri(issuer: string): Promise<string> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const res = await fetch(url, {
    redirect: 'manual',
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    headers: { accept: 'application/json' },
  });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  const doc = (await res.json()) as { issuer?: unknown; jwks_uri?: unknown };
  if (doc.issuer !== issuer) throw new Error(`${url} is the discovery document of issuer "${String(doc.issuer).slice(0, 200)}"`);
  if (typeof doc.jwks_uri !== 'string' || !/^https?:\/\//.test(doc.jwks_uri)) throw new Error(`${url} has no jwks_uri`);
  return doc.jwks_uri;
}

/**
 * A fetch failure's reason, for the 503 and `/health/ready`. Only string fields count: a timeout's cause is a
 * DOMException whose `code` is a number (23), and reading it as a string threw here — which turned every JWKS
 * timeout into a 401 instead of the documented 503.
 */
function reasonOf(err: unknown): string {
  if (typeof err === 'string') return err.slice(0, 200);
  const e = err as { name?: unknown; code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } } | undefined;
  const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  const timeout = e?.code === 'ERR_JWKS_TIMEOUT' || e?.name === 'TimeoutError' ? 'timed out' : undefined;
  return (timeout ?? text(e?.cause?.code) ?? text(e?.cause?.message) ?? text(e?.message) ?? 'unknown error').slice(0, 200);
}
