import type { Request } from 'express';

import type { AppConfig } from '../config/app-config';
import type { DomainException } from '../core/errors';
import { type Authenticators, resolvePrincipal } from './credentials';
import type { RequestPrincipal } from './principal';
import { StreamTickets } from './stream-ticket';

const SECRET = 'a-stream-ticket-secret-of-32-chars!!';
const config = (secret: string | undefined = SECRET) => ({ streamTickets: { secret, ttlS: 60 } }) as unknown as AppConfig;
const ANN: RequestPrincipal = { tenantId: 'acme', userId: 'ann', permissions: ['read', 'write'] };

function codeOf(fn: () => unknown): string {
  try {
    fn();
    return 'accepted';
  } catch (err) {
    return (err as DomainException).code;
  }
}

describe('StreamTickets', () => {
  const tickets = new StreamTickets(config());

  it('gives back the principal it was issued for, on its thread, until it expires', () => {
    const now = Date.now();
    const { ticket, expires_at } = tickets.issue(ANN, 'thread-1', now);
    expect(tickets.verify(ticket, 'thread-1', now + 59_000)).toEqual(ANN);
    expect(Date.parse(expires_at)).toBe(Math.floor(now / 1000) * 1000 + 60_000);
    expect(codeOf(() => tickets.verify(ticket, 'thread-1', now + 61_000))).toBe('TICKET_INVALID');
    expect(codeOf(() => tickets.verify(ticket, 'thread-2', now))).toBe('TICKET_INVALID');
  });

  it('refuses a forged or altered ticket, and one signed with another secret', () => {
    const { ticket } = tickets.issue(ANN, 'thread-1');
    const [v, payload, sig] = ticket.split('.');
    const admin = Buffer.from(
      JSON.stringify({ principal: { ...ANN, permissions: ['read', 'write', 'admin'] }, thread: 'thread-1', exp: 4e9 }),
    ).toString('base64url');
    expect(codeOf(() => tickets.verify(`${v}.${admin}.${sig}`, 'thread-1'))).toBe('TICKET_INVALID');
    expect(codeOf(() => tickets.verify(`${v}.${payload}.${sig.slice(0, -2)}xx`, 'thread-1'))).toBe('TICKET_INVALID');
    expect(codeOf(() => tickets.verify(`${v}.${payload}`, 'thread-1'))).toBe('TICKET_INVALID');
    expect(codeOf(() => tickets.verify('junk', 'thread-1'))).toBe('TICKET_INVALID');
    const elsewhere = new StreamTickets(config('another-secret-that-is-32-chars-long'));
    expect(codeOf(() => elsewhere.verify(ticket, 'thread-1'))).toBe('TICKET_INVALID');
  });

  it('draws a secret of its own when none is configured: its tickets hold here only', () => {
    const unset = { streamTickets: { secret: undefined, ttlS: 60 } } as unknown as AppConfig;
    const a = new StreamTickets(unset);
    const b = new StreamTickets(unset);
    const { ticket } = a.issue(ANN, 't');
    expect(a.verify(ticket, 't')).toEqual(ANN);
    expect(codeOf(() => b.verify(ticket, 't'))).toBe('TICKET_INVALID');
  });
});

describe('resolvePrincipal: a stream ticket on the WebSocket upgrade', () => {
  const tickets = new StreamTickets(config());
  const resumed: RequestPrincipal[] = [];
  const a: Authenticators = {
    keys: { required: async () => true, authenticate: async () => null } as never,
    custom: {
      decides: () => true,
      identify: async () => {
        throw Object.assign(new Error('no header'), { code: 'CUSTOM_AUTH_REFUSED' });
      },
      resume: (principal) => {
        resumed.push(principal);
        return { principal, enter: (fn) => fn() };
      },
    },
    tickets,
  };
  const upgrade = (url: string, headers: Record<string, string> = {}) =>
    ({ method: 'GET', url, headers: { upgrade: 'websocket', ...headers } }) as unknown as Request;
  const who = async (req: Request, path: string) => {
    try {
      return (await resolvePrincipal(a, req, path)).principal.userId;
    } catch (err) {
      return (err as DomainException).code;
    }
  };

  it('reads it from the subprotocol or the query of the thread’s socket, and resumes a custom-auth user', async () => {
    const { ticket } = tickets.issue({ ...ANN, claims: { identity: 'ann', team: 'x' } }, 't-1');
    const path = '/threads/t-1/stream/events';
    expect(await who(upgrade(path, { 'sec-websocket-protocol': `lg-ticket.${ticket}` }), path)).toBe('ann');
    expect(await who(upgrade(`${path}?ticket=${ticket}`), path)).toBe('ann');
    expect(resumed.map((p) => p.claims?.team)).toEqual(['x', 'x']);
  });

  it('is no credential elsewhere, beside a header credential, or for another thread', async () => {
    const { ticket } = tickets.issue(ANN, 't-1');
    // another route, or no upgrade: the ticket is ignored and the custom auth decides (and refuses)
    expect(await who(upgrade(`/threads/t-1/state?ticket=${ticket}`), '/threads/t-1/state')).toBe('CUSTOM_AUTH_REFUSED');
    const plainGet = { method: 'GET', url: `/threads/t-1/stream/events?ticket=${ticket}`, headers: {} } as unknown as Request;
    expect(await who(plainGet, '/threads/t-1/stream/events')).toBe('CUSTOM_AUTH_REFUSED');
    const path = '/threads/t-1/stream/events';
    expect(await who(upgrade(`${path}?ticket=${ticket}`, { 'x-api-key': 'k' }), path)).toBe('CREDENTIALS_AMBIGUOUS');
    expect(await who(upgrade(`${path}?ticket=${ticket}`, { 'sec-websocket-protocol': 'lg-ticket.other' }), path)).toBe(
      'CREDENTIALS_AMBIGUOUS',
    );
    const other = '/threads/t-2/stream/events';
    expect(await who(upgrade(`${other}?ticket=${ticket}`), other)).toBe('TICKET_INVALID');
  });
});
