import path from 'node:path';

import { type JWTPayload } from 'jose';
import { Client } from 'pg';

import { StreamTickets } from '../../src/auth/stream-ticket';
import type { AppConfig } from '../../src/config/app-config';
import { openSocket, socketUrl } from '../support/protocol-socket';
import { SCRIPTED_LLM, type ServiceHandle, useService } from '../support/service-fixture';
import { newKey, TokenIssuer } from '../support/token-issuer';

const ACME_KEY = 'acme-key-0123456789abcdef';
const SECRET = 'the-stream-ticket-secret-of-this-test-0123';
const user = (sub: string, scope = 'read write'): JWTPayload => ({ tenant_id: 'acme', sub, scope });
const EVE: JWTPayload = { tenant_id: 'globex', sub: 'eve', scope: 'admin' };

type Res = { status: number; body: any };

async function call(base: string, headers: Record<string, string>, method: string, p: string, body?: unknown): Promise<Res> {
  const h = { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) };
  const res = await fetch(`${base}${p}`, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
}

/** what the socket's refusal leaves behind: the thread's runs and checkpoints, read as the operator would */
async function effects(svc: ServiceHandle, thread: string): Promise<{ runs: number; checkpoints: number }> {
  const c = new Client({ connectionString: svc.db.url });
  await c.connect();
  try {
    const runs = (await c.query('SELECT count(*)::int AS n FROM runs WHERE session_id = $1', [thread])).rows[0].n as number;
    const checkpoints = (await c.query(`SELECT count(*)::int AS n FROM langgraph.checkpoints WHERE thread_id LIKE '%' || $1`, [thread]))
      .rows[0].n as number;
    return { runs, checkpoints };
  } finally {
    await c.end();
  }
}

describe('the protocol WebSocket: who may open it (tokens, API keys, tickets)', () => {
  const issuer = new TokenIssuer();
  beforeAll(async () => {
    await issuer.start();
    issuer.published = [await newKey('k1')];
  });
  afterAll(() => issuer.stop());
  const svc = useService('ws_auth', {
    model: { resetEach: true },
    env: () => ({
      ...SCRIPTED_LLM,
      API_KEYS: `acme:${ACME_KEY}`,
      AUTH_ISSUER: issuer.url,
      AUTH_AUDIENCE: issuer.audience,
      STREAM_TICKET_SECRET: SECRET,
    }),
  });
  const bearer = async (claims: JWTPayload) => ({ authorization: `Bearer ${await issuer.sign(claims)}` });
  /** a thread of a new user's, and that user's headers */
  const ownThread = async (sub: string) => {
    const headers = await bearer(user(sub));
    const made = await call(svc.url, headers, 'POST', '/threads', {});
    expect(made.status).toBe(200);
    return { thread: made.body.thread_id as string, headers };
  };

  it('admits a Node client with its usual headers, and refuses one without (4401) or with a bad one', async () => {
    const { thread, headers } = await ownThread('alice1');
    const owner = await openSocket(svc.url, thread, { headers });
    expect(owner.ws.readyState).toBe(1);
    owner.close();
    const key = await openSocket(svc.url, thread, { headers: { 'x-api-key': ACME_KEY } });
    expect(key.ws.readyState).toBe(1);
    key.close();
    expect(await (await openSocket(svc.url, thread)).closed).toEqual({ code: 4401, reason: 'UNAUTHORIZED' });
    expect((await (await openSocket(svc.url, thread, { headers: { 'x-api-key': 'nope-nope-nope-nope' } })).closed).code).toBe(4401);
  });

  it("refuses another user's thread as a missing one (4404), with no effect; another tenant's id is a thread of its own", async () => {
    const { thread } = await ownThread('alice2');
    const before = await effects(svc, thread);
    const bob = await openSocket(svc.url, thread, { headers: await bearer(user('bob2')) });
    // LangGraph's own not-found text is the reason (the LangGraph API's body for it)
    expect(await bob.closed).toEqual({ code: 4404, reason: `Thread with ID ${thread} not found` });
    // the refused client's frames never reach the service: nothing was started or written
    bob.raw(JSON.stringify({ id: 1, method: 'run.start', params: { assistant_id: 'react', input: {} } }));
    expect(bob.frames).toEqual([]);
    expect((await call(svc.url, await bearer(user('bob2')), 'POST', `/threads/${thread}/stream/ticket`)).status).toBe(404);
    expect(await effects(svc, thread)).toEqual(before);
    // globex's admin names the same id: a thread of globex (none yet), never alice's
    const eve = await openSocket(svc.url, thread, { headers: await bearer(EVE) });
    expect(eve.ws.readyState).toBe(1);
    eve.close();
  });

  it('a browser opens it with a ticket in its subprotocol or query; the ticket is bound to the thread and expires', async () => {
    const { thread, headers } = await ownThread('alice3');
    const issued = await call(svc.url, headers, 'POST', `/threads/${thread}/stream/ticket`);
    expect(issued.status).toBe(200);
    const { ticket, expires_at } = issued.body as { ticket: string; expires_at: string };
    expect(Date.parse(expires_at) - Date.now()).toBeLessThanOrEqual(60_000);

    const viaProtocol = await openSocket(svc.url, thread, { protocols: [`lg-ticket.${ticket}`] });
    expect([viaProtocol.ws.readyState, viaProtocol.ws.protocol]).toEqual([1, `lg-ticket.${ticket}`]);
    viaProtocol.close();
    const viaQuery = await openSocket(svc.url, thread, { query: `ticket=${ticket}` });
    expect(viaQuery.ws.readyState).toBe(1);
    viaQuery.close();

    const refusal = async (t: string, on = thread, headers2: Record<string, string> = {}) =>
      (await openSocket(svc.url, on, { protocols: [`lg-ticket.${t}`], headers: headers2 })).closed;
    const other = (await ownThread('alice3b')).thread;
    expect(await refusal(ticket, other)).toEqual({ code: 4401, reason: 'TICKET_INVALID' });
    const [v, payload, sig] = ticket.split('.');
    expect(await refusal(`${v}.${payload}.${sig.startsWith('A') ? 'B' : 'A'}${sig.slice(1)}`)).toEqual({
      code: 4401,
      reason: 'TICKET_INVALID',
    });
    const forged = new StreamTickets({ streamTickets: { secret: 'not-the-secret-of-the-service-0123456789', ttlS: 60 } } as AppConfig);
    expect(await refusal(forged.issue({ tenantId: 'acme', userId: 'alice3', permissions: ['read', 'write'] }, thread).ticket)).toEqual({
      code: 4401,
      reason: 'TICKET_INVALID',
    });
    const signedHere = new StreamTickets({ streamTickets: { secret: SECRET, ttlS: 60 } } as AppConfig);
    const expired = signedHere.issue({ tenantId: 'acme', userId: 'alice3', permissions: ['read', 'write'] }, thread, Date.now() - 61_000);
    expect(await refusal(expired.ticket)).toEqual({ code: 4401, reason: 'TICKET_INVALID' });
    // a ticket is the socket's only credential
    expect(await refusal(ticket, thread, { 'x-api-key': ACME_KEY })).toEqual({ code: 4401, reason: 'CREDENTIALS_AMBIGUOUS' });
    // a ticket is no credential for any other request
    expect((await fetch(`${svc.url}/threads/${thread}/state?ticket=${ticket}`)).status).toBe(401);
  });

  it('a ticket carries no more than its issuer: a read-only token’s socket refuses commands that write', async () => {
    const { thread } = await ownThread('carol4');
    const reader = await bearer(user('carol4', 'read'));
    const issued = await call(svc.url, reader, 'POST', `/threads/${thread}/stream/ticket`);
    expect(issued.status).toBe(200);
    const socket = await openSocket(svc.url, thread, { protocols: [`lg-ticket.${issued.body.ticket}`] });
    const before = await effects(svc, thread);
    const answer = await socket.command(1, 'run.start', { assistant_id: 'react', input: { messages: [] } });
    expect(answer).toMatchObject({ type: 'error', id: 1, error: 'permission_denied' });
    expect(await effects(svc, thread)).toEqual(before);
    socket.close();
  });

  it('answers bad frames with invalid_argument and stays open; a plain GET is 426; an ambiguous path is refused at the edge', async () => {
    const { thread, headers } = await ownThread('dave5');
    const socket = await openSocket(svc.url, thread, { headers });
    socket.raw('{not json');
    expect(await socket.frame((f) => f.type === 'error')).toEqual({
      type: 'error',
      id: null,
      error: 'invalid_argument',
      message: 'Protocol commands must be valid JSON.',
    });
    socket.raw(JSON.stringify({ id: 7, method: 42 }));
    expect(await socket.frame((f) => f.id === 7)).toMatchObject({ type: 'error', error: 'invalid_argument' });
    socket.raw(JSON.stringify({ id: 8, method: 'subscription.subscribe', params: { channels: ['nope'] } }));
    expect(await socket.frame((f) => f.id === 8)).toMatchObject({ type: 'error', error: 'invalid_argument' });
    socket.raw(Buffer.from([0xff, 0xfe]));
    expect(await socket.frame((f) => f.type === 'error' && f.id === null && f !== socket.frames[0])).toMatchObject({
      error: 'invalid_argument',
    });
    expect(socket.ws.readyState).toBe(1);
    // a frame above the body limit closes the socket (1009)
    socket.raw('x'.repeat(2 * 1024 * 1024));
    expect((await socket.closed).code).toBe(1009);

    const plain = await call(svc.url, headers, 'GET', `/threads/${thread}/stream/events`);
    expect(plain.status).toBe(426);
    const edge = await openSocket(svc.url, 'a%2Fb', { headers });
    expect(await edge.closed).toEqual({ code: 4400, reason: 'INVALID_PATH' });
    expect(socketUrl(svc.url, 'x')).toMatch(/^ws:/);
  });
});

describe('the protocol WebSocket under langgraph.json custom auth', () => {
  const CONFIG = path.join(__dirname, '..', 'fixtures', 'graphs', 'team-auth', 'langgraph.json');
  const svc = useService('ws_custom_auth', { env: { LANGGRAPH_CONFIG: CONFIG, STREAM_TICKET_SECRET: SECRET } });
  const as = (who: string) => ({ authorization: `Bearer ${who}` });

  it("honours authenticate's refusal and the handlers: a teammate in, another team's user out, a ticket resumes the user", async () => {
    const made = await call(svc.url, as('ann'), 'POST', '/threads', {});
    expect(made.status).toBe(200);
    const thread = made.body.thread_id as string;
    // authenticate refuses a caller without a token: its 401 and message
    expect(await (await openSocket(svc.url, thread)).closed).toEqual({ code: 4401, reason: 'who are you?' });
    // the `threads` handler: ben (blue) may not read red's thread
    expect((await (await openSocket(svc.url, thread, { headers: as('ben') })).closed).code).toBe(4404);
    expect((await call(svc.url, as('ben'), 'POST', `/threads/${thread}/stream/ticket`)).status).toBe(404);
    const al = await openSocket(svc.url, thread, { headers: as('al') });
    expect(al.ws.readyState).toBe(1);
    al.close();
    // ann's ticket: the socket is ann's (her team's handler filters still apply to what she does)
    const ticket = (await call(svc.url, as('ann'), 'POST', `/threads/${thread}/stream/ticket`)).body.ticket as string;
    const browser = await openSocket(svc.url, thread, { protocols: [`lg-ticket.${ticket}`] });
    expect(browser.ws.readyState).toBe(1);
    const state = await browser.command(1, 'state.get');
    expect(state).toMatchObject({ id: 1 });
    expect(state.error).not.toBe('permission_denied');
    browser.close();
  });
});
