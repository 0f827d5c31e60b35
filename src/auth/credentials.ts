import type { Request } from 'express';

import type { ApiKeyAuth, Principal } from './api-key-auth.service';
import { AmbiguousCredentialsException, ApiKeyRequiredException, UnsupportedCredentialException } from './auth-errors';
import { ALL_PERMISSIONS, type RequestPrincipal } from './principal';
import { type StreamTickets, TICKET_QUERY, TICKET_SUBPROTOCOL } from './stream-ticket';
import { DEFAULT_TENANT } from './tenant';
import { looksLikeJwt, type TokenAuth } from './token-auth.service';

/** The credentials a request carries: `Authorization` (a Bearer credential, or some other scheme) and `x-api-key`. */
export interface Presented {
  /** `Authorization: Bearer <credential>` */
  bearer?: string;
  /** an `Authorization` header that is not `Bearer <credential>` (Basic, a bare value, …) */
  otherAuthorization: boolean;
  apiKey?: string;
}

export function presentedCredentials(headers: Record<string, string | string[] | undefined>): Presented {
  const authorization = typeof headers.authorization === 'string' ? headers.authorization.trim() : '';
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
  const x = headers['x-api-key'];
  const apiKey = typeof x === 'string' && x.trim() ? x.trim() : undefined;
  return { bearer, otherAuthorization: authorization !== '' && bearer === undefined, apiKey };
}

/** Who a request is when langgraph.json's custom auth decides it: the principal, and how to run the rest of the request as it. */
export interface CustomIdentity {
  principal: RequestPrincipal;
  enter<T>(fn: () => T): T;
}

/**
 * langgraph.json's custom auth as the one credential resolver calls it (implemented by langgraph-api's
 * LanggraphCustomAuth, which sits in a layer above): which requests it decides, and who one is (it throws the
 * refusal, a DomainException).
 */
export interface CustomAuthenticator {
  decides(method: string, path: string): boolean;
  identify(req: Request): Promise<CustomIdentity>;
  /** the identity a stream ticket carries (issued to a custom-auth user): its handlers see the same user again */
  resume(principal: RequestPrincipal): CustomIdentity;
}

/** What resolves credentials: the service's API keys, its bearer tokens (when configured), and the custom auth (when configured). */
export interface Authenticators {
  keys: ApiKeyAuth;
  tokens?: TokenAuth;
  custom?: CustomAuthenticator;
  /** stream tickets: a browser's WebSocket credential (auth/stream-ticket.ts) */
  tickets?: StreamTickets;
}

export interface Resolved {
  principal: RequestPrincipal;
  /** runs the rest of the request as a custom-auth identity (its handlers read it) */
  enter?: <T>(fn: () => T) => T;
}

/**
 * THE credential resolution: every request that needs a principal gets exactly one — a verified service API
 * key, a verified token user, or the custom auth's identity — or a refusal. A credential that does not verify is
 * a 401 whatever else the request carries; two different credentials are refused (401 `CREDENTIALS_AMBIGUOUS`),
 * never resolved by precedence; and once the custom auth has admitted a request, nothing else authenticates it.
 * `path` is the request's path below the service's mount point.
 */
export async function resolvePrincipal(a: Authenticators, req: Request, path: string): Promise<Resolved> {
  const presented = presentedCredentials(req.headers);
  const ticket = a.tickets ? streamTicketOf(req, path) : undefined;
  if (ticket !== undefined) return byTicket(a, ticket, presented);
  if (a.custom?.decides(req.method, path)) return byCustomAuth(a, a.custom, req, presented);
  return { principal: await byServiceCredentials(a, presented) };
}

/** the thread of a thread event protocol WebSocket (`GET /threads/{id}/stream/events` with an upgrade) */
const STREAM_SOCKET = /^\/threads\/([^/]+)\/stream\/events$/;

/**
 * The stream ticket an upgrade to the protocol's WebSocket carries, in its subprotocol (`lg-ticket.<ticket>`) or
 * its query (`?ticket=`), with the thread of its path. Any other request's `ticket` is no credential.
 */
export function streamTicketOf(req: Request, path: string): { ticket: string; thread: string } | undefined {
  const thread = STREAM_SOCKET.exec(path)?.[1];
  if (thread === undefined || req.method !== 'GET' || req.headers.upgrade?.toLowerCase() !== 'websocket') return undefined;
  const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  const inProtocol = offered.find((p) => p.startsWith(TICKET_SUBPROTOCOL))?.slice(TICKET_SUBPROTOCOL.length);
  const query = req.url.includes('?') ? new URLSearchParams(req.url.slice(req.url.indexOf('?') + 1)) : undefined;
  const inQuery = query?.get(TICKET_QUERY) ?? undefined;
  if (inProtocol !== undefined && inQuery !== undefined && inProtocol !== inQuery) {
    throw new AmbiguousCredentialsException('two stream tickets');
  }
  const ticket = inProtocol ?? inQuery;
  return ticket === undefined ? undefined : { ticket, thread: decodeURIComponent(thread) };
}

/**
 * A stream ticket is the socket's only credential (with a header credential beside it: 401, never precedence); a
 * custom-auth user's ticket resumes that user, so the resource handlers decide its commands as they would its
 * requests.
 */
function byTicket(a: Authenticators, t: { ticket: string; thread: string }, p: Presented): Resolved {
  if (p.bearer !== undefined || p.apiKey !== undefined || p.otherAuthorization) {
    throw new AmbiguousCredentialsException('a stream ticket and a header credential');
  }
  const principal = a.tickets!.verify(t.ticket, t.thread);
  if (principal.claims === undefined || !a.custom) return { principal };
  const { enter } = a.custom.resume(principal);
  return { principal, enter };
}

/**
 * Under custom auth, `x-api-key` is the service's own credential when keys are configured (the tenant's operator):
 * it must verify and be the request's only credential; without it, the custom `authenticate` alone decides (it sees
 * every header, and the service's bearer tokens are not consulted).
 */
async function byCustomAuth(a: Authenticators, custom: CustomAuthenticator, req: Request, p: Presented): Promise<Resolved> {
  if (p.apiKey !== undefined && (await a.keys.required())) {
    const key = await a.keys.authenticate(p.apiKey);
    if (!key) throw new ApiKeyRequiredException();
    if ((p.bearer !== undefined || p.otherAuthorization) && p.bearer !== p.apiKey) {
      throw new AmbiguousCredentialsException('x-api-key and Authorization');
    }
    return { principal: keyPrincipal(key) };
  }
  return custom.identify(req);
}

/** The service's own credentials: one API key or one bearer token (both headers may carry the same key). */
async function byServiceCredentials(a: Authenticators, p: Presented): Promise<RequestPrincipal> {
  const tokensOn = a.tokens?.enabled() ?? false;
  // nothing configured to check a credential with: one open tenant (logged at start-up)
  if (!tokensOn && !(await a.keys.required())) return { tenantId: DEFAULT_TENANT, permissions: ALL_PERMISSIONS };
  if (p.otherAuthorization) throw new UnsupportedCredentialException();
  if (p.bearer !== undefined && p.apiKey !== undefined && p.bearer !== p.apiKey) {
    throw new AmbiguousCredentialsException('Authorization and x-api-key');
  }
  const credential = p.bearer ?? p.apiKey;
  if (credential === undefined) throw new ApiKeyRequiredException(tokensOn);
  // with tokens on, a bearer credential shaped like a JWT is a token (API keys have no dots)
  if (tokensOn && p.bearer !== undefined && looksLikeJwt(credential)) return a.tokens!.verify(credential);
  const key = await a.keys.authenticate(credential);
  if (!key) throw new ApiKeyRequiredException(tokensOn);
  return keyPrincipal(key);
}

function keyPrincipal(key: Principal): RequestPrincipal {
  return { tenantId: key.tenantId, keyId: key.keyId, permissions: ALL_PERMISSIONS };
}
