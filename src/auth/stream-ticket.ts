import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

import { Injectable, Logger } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { DomainException } from '../core/errors';
import type { RequestPrincipal } from './principal';

/** The subprotocol prefix a browser's WebSocket carries its ticket in: `new WebSocket(url, ['lg-ticket.' + ticket])`. */
export const TICKET_SUBPROTOCOL = 'lg-ticket.';
/** the query parameter a ticket may come in instead (`?ticket=`); the subprotocol keeps it out of access logs */
export const TICKET_QUERY = 'ticket';

const VERSION = 'v1';
/** a ticket carries its principal (a custom-auth identity's fields included): beyond this it is refused at issue */
const MAX_TICKET_CHARS = 6000;

/** What a ticket is good for: one tenant's principal, one thread, until `exp` (seconds since the epoch). */
interface TicketBody {
  principal: RequestPrincipal;
  thread: string;
  exp: number;
}

/** 401 for a stream ticket that is forged, expired, malformed or for another thread. */
export class TicketRejectedException extends DomainException {
  constructor(why: string) {
    super('TICKET_INVALID', `the stream ticket is not valid here: ${why}`, 401);
    this.headers = { 'WWW-Authenticate': 'Bearer' };
  }
}

/** 413 for a principal too large to fit in a ticket (a custom auth returning very large fields). */
export class TicketTooLargeException extends DomainException {
  constructor() {
    super('TICKET_TOO_LARGE', 'the caller’s identity is too large to fit in a stream ticket', 413);
  }
}

/**
 * Short-lived, thread-scoped credentials for a browser's WebSocket, which cannot send headers: `POST
 * /threads/{id}/stream/ticket`, authenticated as any request, returns one; the socket presents it in its
 * subprotocol (`lg-ticket.<ticket>`) or query string (`?ticket=`). A ticket is the issuing request's principal
 * (tenant, user or key, permissions, a custom-auth identity's fields), the thread and an expiry, signed with
 * HMAC-SHA256 under STREAM_TICKET_SECRET — the same secret on every API process, so any of them accepts it.
 * Without the setting a random secret is drawn at start-up (the cluster's primary shares one with its
 * workers): tickets then hold on this host only.
 */
@Injectable()
export class StreamTickets {
  private readonly secret: Buffer;

  constructor(private readonly config: AppConfig) {
    const configured = config.streamTickets.secret;
    if (!configured) {
      new Logger(StreamTickets.name).log('STREAM_TICKET_SECRET unset: stream tickets are signed with a secret of this host only');
    }
    this.secret = configured ? Buffer.from(configured) : randomBytes(32);
  }

  /** A ticket for `principal` on `thread`, and when it expires. */
  issue(principal: RequestPrincipal, thread: string, now = Date.now()): { ticket: string; expires_at: string } {
    const exp = Math.floor(now / 1000) + this.config.streamTickets.ttlS;
    const body: TicketBody = { principal: plain(principal), thread, exp };
    const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
    const ticket = `${VERSION}.${payload}.${this.sign(payload)}`;
    if (ticket.length > MAX_TICKET_CHARS) throw new TicketTooLargeException();
    return { ticket, expires_at: new Date(exp * 1000).toISOString() };
  }

  /** The principal of a valid ticket for `thread`; throws TicketRejectedException otherwise. */
  verify(ticket: string, thread: string, now = Date.now()): RequestPrincipal {
    const [version, payload, signature, extra] = ticket.split('.');
    if (version !== VERSION || !payload || !signature || extra !== undefined || ticket.length > MAX_TICKET_CHARS) {
      throw new TicketRejectedException('it is malformed');
    }
    if (!this.signedHere(payload, signature)) throw new TicketRejectedException('its signature does not verify');
    const body = parseBody(payload);
    if (body.exp * 1000 <= now) throw new TicketRejectedException('it has expired');
    if (body.thread !== thread) throw new TicketRejectedException('it was issued for another thread');
    return body.principal;
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.secret).update(`${VERSION}.${payload}`).digest('base64url');
  }

  private signedHere(payload: string, signature: string): boolean {
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}

/** the principal's own fields, nothing else (no prototype, no extra keys a caller could have added) */
function plain(p: RequestPrincipal): RequestPrincipal {
  return {
    tenantId: p.tenantId,
    ...(p.userId !== undefined ? { userId: p.userId } : {}),
    ...(p.keyId !== undefined ? { keyId: p.keyId } : {}),
    permissions: [...p.permissions],
    ...(p.claims !== undefined ? { claims: p.claims } : {}),
  };
}

/** a signed payload was written by `issue`; still, nothing but its expected shape is read from it */
function parseBody(payload: string): TicketBody {
  let body: Partial<TicketBody>;
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<TicketBody>;
  } catch {
    throw new TicketRejectedException('it is malformed');
  }
  const p = body.principal;
  if (
    typeof body.exp !== 'number' ||
    typeof body.thread !== 'string' ||
    !p ||
    typeof p.tenantId !== 'string' ||
    !Array.isArray(p.permissions)
  ) {
    throw new TicketRejectedException('it is malformed');
  }
  return body as TicketBody;
}
