import path from 'node:path';

import { type JWTPayload } from 'jose';
import { Client } from 'pg';

import { CronRunner } from '../../src/langgraph-api/crons/cron-runner.service';
import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { newKey, TokenIssuer } from '../support/token-issuer';

const ACME_KEY = 'acme-key-0123456789abcdef';
/** a user of tenant acme with read and write: a new name in each test, so each starts with nothing of its own */
const user = (sub: string) => ({ tenant_id: 'acme', sub, scope: 'read write' });
const ROOT = { tenant_id: 'acme', sub: 'root', scope: 'admin' };
const EVE = { tenant_id: 'globex', sub: 'eve', scope: 'admin' };
const INPUT = { messages: [{ role: 'user', content: 'hi' }] };
const NEVER_SOON = '0 0 1 1 *';

type Res = { status: number; body: any };

/** HTTP with `Authorization: Bearer <token>` or `x-api-key`. */
async function call(base: string, auth: { bearer?: string; key?: string }, method: string, p: string, body?: unknown): Promise<Res> {
  const headers: Record<string, string> = {};
  if (auth.bearer) headers.authorization = `Bearer ${auth.bearer}`;
  if (auth.key) headers['x-api-key'] = auth.key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const json = (res.headers.get('content-type') ?? '').includes('json') || /^\d+$/.test(text);
  return { status: res.status, body: text && json ? JSON.parse(text) : text || null };
}

/** The bearer tokens of one issuer, and HTTP as each caller. */
function useTokens(env: Record<string, string> = {}) {
  const issuer = new TokenIssuer();
  beforeAll(async () => {
    await issuer.start();
    issuer.published = [await newKey('k1')];
  });
  afterAll(() => issuer.stop());
  const svc = useService(`users_${env.AUTH_USER_ISOLATION ?? 'owner'}`, {
    model: { resetEach: true },
    env: () => ({ ...SCRIPTED_LLM, API_KEYS: `acme:${ACME_KEY}`, AUTH_ISSUER: issuer.url, AUTH_AUDIENCE: issuer.audience, ...env }),
  });
  const as = async (claims: JWTPayload) => {
    const bearer = await issuer.sign(claims);
    return (method: string, p: string, body?: unknown) => call(svc.url, { bearer }, method, p, body);
  };
  const key = (method: string, p: string, body?: unknown) => call(svc.url, { key: ACME_KEY }, method, p, body);
  return { svc, as, key };
}

const statuses = (answers: Res[]) => answers.map((a) => a.status);
const ids = (list: Array<Record<string, unknown>>, field: string) => list.map((x) => x[field]).sort();

describe('users inside a tenant (AUTH_USER_ISOLATION=owner, the default)', () => {
  const { svc, as, key } = useTokens();

  it("records the owner on threads and hides a user's thread from another: get, update, delete, state, copy, search, count", async () => {
    const [alice, bob, root] = [await as(user('alice0')), await as(user('bob0')), await as(ROOT)];
    // a client-sent owner is replaced by the caller
    const thread = (await alice('POST', '/threads', { metadata: { owner: 'bob', mark: 'a' } })).body;
    expect(thread.metadata).toMatchObject({ owner: 'alice0', mark: 'a' });
    const own = (await bob('POST', '/threads', { metadata: { mark: 'b' } })).body.thread_id;
    const t = thread.thread_id;
    expect(
      statuses([
        await bob('GET', `/threads/${t}`),
        await bob('PATCH', `/threads/${t}`, { metadata: { x: 1 } }),
        await bob('GET', `/threads/${t}/state`),
        await bob('POST', `/threads/${t}/history`, {}),
        await bob('DELETE', `/threads/${t}`),
        await bob('POST', `/threads/${t}/copy`), // as LangGraph Server answers the copy of a hidden thread
      ]),
    ).toEqual([404, 404, 404, 404, 404, 409]);
    expect(ids((await bob('POST', '/threads/search', { limit: 100 })).body, 'thread_id')).toEqual([own]);
    expect((await bob('POST', '/threads/count', {})).body).toBe(1);
    // an admin token and an API key see the whole tenant; the owner sees its own
    for (const operator of [root, key]) {
      expect(ids((await operator('POST', '/threads/search', { limit: 100 })).body, 'thread_id')).toEqual(expect.arrayContaining([t, own]));
    }
    expect((await alice('GET', `/threads/${t}`)).status).toBe(200);
    // another tenant's admin never sees it
    const eve = await as(EVE);
    expect(statuses([await eve('GET', `/threads/${t}`), await eve('DELETE', `/threads/${t}`)])).toEqual([404, 404]);
    expect((await eve('POST', '/threads/count', {})).body).toBe(0);
  });

  it("refuses runs on another user's thread and hides its runs: create, get, list, join, stream, cancel, delete", async () => {
    svc.model.setResponder(() => ({ content: 'ok' }));
    const [alice, bob] = [await as(user('alice1')), await as(user('bob1'))];
    const t = (await alice('POST', '/threads', {})).body.thread_id;
    const run = await alice('POST', `/threads/${t}/runs`, { assistant_id: 'react', input: INPUT });
    expect(run.status).toBe(200);
    const r = run.body.run_id;
    await alice('GET', `/threads/${t}/runs/${r}/join`);
    expect(
      statuses([
        await bob('POST', `/threads/${t}/runs/wait`, { assistant_id: 'react', input: INPUT }),
        await bob('GET', `/threads/${t}/runs/${r}`),
        await bob('GET', `/threads/${t}/runs`),
        await bob('GET', `/threads/${t}/runs/${r}/join`),
        await bob('POST', `/threads/${t}/runs/${r}/cancel`),
        await bob('DELETE', `/threads/${t}/runs/${r}`),
      ]),
    ).toEqual([404, 404, 404, 404, 404, 404]);
    // a join stream of a hidden thread's run is one error event, as LangGraph Server streams it
    const stream = await bob('GET', `/threads/${t}/runs/${r}/stream`);
    expect(stream.body).toContain('404: Thread not found');
    expect(stream.body).not.toContain('"run_id"');
    // a stateless run's temporary thread is its caller's too
    const kept = await bob('POST', '/runs/wait', { assistant_id: 'react', input: INPUT, on_completion: 'keep' });
    expect(kept.status).toBe(200);
    expect((await bob('POST', '/threads/search', { metadata: { owner: 'bob1' }, limit: 100 })).body.length).toBeGreaterThan(0);
    expect((await alice('GET', `/threads/${t}/runs/${r}`)).body.status).toBe('success');
  });

  it("hides a user's assistants (but not the built-in ones) and refuses runs of them", async () => {
    const [alice, bob, root] = [await as(user('alice2')), await as(user('bob2')), await as(ROOT)];
    const a = (await alice('POST', '/assistants', { graph_id: 'react', name: 'alices' })).body;
    expect(a.metadata).toEqual({ owner: 'alice2' });
    const id = a.assistant_id;
    const bt = (await bob('POST', '/threads', {})).body.thread_id;
    expect(
      statuses([
        await bob('GET', `/assistants/${id}`),
        await bob('PATCH', `/assistants/${id}`, { metadata: { x: 1 } }),
        await bob('POST', `/assistants/${id}/versions`, {}),
        await bob('GET', `/assistants/${id}/schemas`),
        await bob('POST', `/threads/${bt}/runs`, { assistant_id: id, input: INPUT }),
        await bob('DELETE', `/assistants/${id}`),
      ]),
    ).toEqual([404, 404, 404, 404, 404, 404]);
    const seen = (await bob('POST', '/assistants/search', { limit: 100 })).body as Array<{ assistant_id: string; graph_id: string }>;
    expect(seen.map((x) => x.assistant_id)).not.toContain(id);
    expect(seen.map((x) => x.graph_id)).toContain('react'); // the built-in assistants stay everyone's
    expect((await bob('GET', '/assistants/react')).status).toBe(200);
    const all = (await root('POST', '/assistants/count', {})).body;
    expect((await bob('POST', '/assistants/count', {})).body).toBe(all - 1);
    expect((await key('GET', `/assistants/${id}`)).status).toBe(200);
  });

  it("hides a user's crons and refuses crons on another user's thread", async () => {
    const [alice, bob, root] = [await as(user('alice3')), await as(user('bob3')), await as(ROOT)];
    const t = (await alice('POST', '/threads', {})).body.thread_id;
    const cron = await alice('POST', `/threads/${t}/runs/crons`, { assistant_id: 'react', schedule: NEVER_SOON, input: INPUT });
    expect(cron.status).toBe(200);
    expect(cron.body).toMatchObject({ metadata: { owner: 'alice3' }, user_id: 'alice3' });
    const c = cron.body.cron_id;
    expect(
      statuses([
        await bob('POST', `/threads/${t}/runs/crons`, { assistant_id: 'react', schedule: NEVER_SOON, input: INPUT }),
        await bob('PATCH', `/runs/crons/${c}`, { enabled: false }),
        await bob('DELETE', `/runs/crons/${c}`),
      ]),
    ).toEqual([404, 404, 404]);
    expect((await bob('POST', '/runs/crons/search', {})).body).toEqual([]);
    expect((await bob('POST', '/runs/crons/count', {})).body).toBe(0);
    expect(ids((await root('POST', '/runs/crons/search', {})).body, 'cron_id')).toContain(c);
    expect((await alice('DELETE', `/runs/crons/${c}`)).status).toBe(204);
    // a stateless cron's tick makes a new thread: its user's
    svc.model.setResponder(() => ({ content: 'ok' }));
    const body = { assistant_id: 'react', schedule: NEVER_SOON, input: INPUT, on_run_completed: 'keep' };
    const stateless = (await alice('POST', '/runs/crons', body)).body.cron_id;
    const tick = await svc.app.get(CronRunner).fire('acme', stateless);
    if (tick.status !== 'started') throw new Error(`the tick did not start: ${JSON.stringify(tick)}`);
    expect((await alice('GET', `/threads/${tick.threadId}`)).body.metadata).toMatchObject({ owner: 'alice3' });
    expect((await bob('GET', `/threads/${tick.threadId}`)).status).toBe(404);
  });

  it("hides a user's store items: get, overwrite, delete, search, namespaces", async () => {
    const [alice, bob, root] = [await as(user('alice4')), await as(user('bob4')), await as(ROOT)];
    expect((await alice('PUT', '/store/items', { namespace: ['notes', 'a'], key: 'k', value: { v: 'alice' } })).status).toBe(204);
    expect((await bob('PUT', '/store/items', { namespace: ['notes', 'b'], key: 'k', value: { v: 'bob' } })).status).toBe(204);
    expect(
      statuses([
        await bob('GET', '/store/items?namespace=notes.a&key=k'),
        await bob('PUT', '/store/items', { namespace: ['notes', 'a'], key: 'k', value: { v: 'bob was here' } }),
        await bob('DELETE', '/store/items', { namespace: ['notes', 'a'], key: 'k' }),
      ]),
    ).toEqual([404, 404, 404]);
    const values = async (who: typeof bob) =>
      ((await who('POST', '/store/items/search', { namespace_prefix: ['notes'] })).body.items as Array<{ value: { v: string } }>)
        .map((i) => i.value.v)
        .sort();
    expect(await values(bob)).toEqual(['bob']);
    expect((await bob('POST', '/store/namespaces', {})).body.namespaces).toEqual([['notes', 'b']]);
    expect((await bob('POST', '/store/namespaces', { max_depth: 1 })).body.namespaces).toEqual([['notes']]);
    expect(await values(alice)).toEqual(['alice']);
    expect(await values(root)).toEqual(['alice', 'bob']);
    expect((await key('GET', '/store/items?namespace=notes.a&key=k')).body.value).toEqual({ v: 'alice' });

    // an item whose TTL ran out leaves the user's namespaces with it
    expect((await bob('PUT', '/store/items', { namespace: ['notes', 'brief'], key: 'k', value: { v: 'soon gone' }, ttl: 1 })).status).toBe(
      204,
    );
    expect((await bob('POST', '/store/namespaces', {})).body.namespaces).toEqual([
      ['notes', 'b'],
      ['notes', 'brief'],
    ]);
    const db = new Client({ connectionString: svc.db.url });
    await db.connect();
    try {
      await db.query(`UPDATE "langgraph".store SET expires_at = now() - interval '1 second' WHERE namespace_path LIKE '%:notes:brief'`);
    } finally {
      await db.end();
    }
    expect((await bob('GET', '/store/items?namespace=notes.brief&key=k')).body).toBeNull();
    expect((await bob('POST', '/store/namespaces', {})).body.namespaces).toEqual([['notes', 'b']]);
  });

  it("hides a user's REST v1 sessions and jobs: get, result, delete, chat on, list, job get, events, cancel", async () => {
    svc.model.setResponder(() => ({ content: 'ok' }));
    const [alice, bob, root] = [await as(user('alice5')), await as(user('bob5')), await as(ROOT)];
    const turn = await alice('POST', '/v1/chat', { message: 'mine', agent: 'react' });
    expect(turn.status).toBe(200);
    const s = turn.body.session_id;
    const job = (await alice('POST', '/v1/jobs', { message: 'queued', session_id: s })).body.job_id;
    const bobs = (await bob('POST', '/v1/chat', { message: 'his', agent: 'react' })).body.session_id;
    const answers = [
      await bob('GET', `/v1/sessions/${s}`),
      await bob('GET', `/v1/sessions/${s}/result`),
      await bob('GET', `/v1/sessions/${s}/runs/${turn.body.run_id}/trace`),
      await bob('POST', '/v1/chat', { message: 'on hers', session_id: s }),
      await bob('POST', '/v1/jobs', { message: 'on hers', session_id: s }),
      await bob('DELETE', `/v1/sessions/${s}`),
    ];
    expect(answers.map((a) => [a.status, a.body?.error?.code])).toEqual(Array(6).fill([404, 'SESSION_NOT_FOUND']));
    const jobs = [
      await bob('GET', `/v1/jobs/${job}`),
      await bob('GET', `/v1/jobs/${job}/events`),
      await bob('POST', `/v1/jobs/${job}/cancel`),
      await bob('POST', `/v1/jobs/${job}/approve`),
    ];
    expect(jobs.map((a) => [a.status, a.body?.error?.code])).toEqual(Array(4).fill([404, 'JOB_NOT_FOUND']));
    expect(ids((await bob('GET', '/v1/sessions')).body.sessions, 'session_id')).toEqual([bobs]);
    // the v1 session is a thread of its owner's
    expect((await alice('GET', `/threads/${s}`)).body.metadata).toMatchObject({ owner: 'alice5' });
    expect((await bob('GET', `/threads/${s}`)).status).toBe(404);
    for (const operator of [root, key]) {
      expect(ids((await operator('GET', '/v1/sessions?limit=100')).body.sessions, 'session_id')).toEqual(expect.arrayContaining([s, bobs]));
      expect((await operator('GET', `/v1/jobs/${job}`)).status).toBe(200);
    }
    expect((await alice('GET', `/v1/sessions/${s}`)).status).toBe(200);
  });
});

describe('users inside a tenant (AUTH_USER_ISOLATION=tenant)', () => {
  const { svc, as } = useTokens({ AUTH_USER_ISOLATION: 'tenant' });

  it('shares everything inside the tenant (owners still recorded), never across tenants', async () => {
    svc.model.setResponder(() => ({ content: 'ok' }));
    const [alice, bob, eve] = [await as(user('alice7')), await as(user('bob7')), await as(EVE)];
    const thread = (await alice('POST', '/threads', {})).body;
    expect(thread.metadata).toEqual({ owner: 'alice7' });
    const s = (await alice('POST', '/v1/chat', { message: 'mine', agent: 'react' })).body.session_id;
    await alice('PUT', '/store/items', { namespace: ['shared'], key: 'k', value: { v: 1 } });
    expect(
      statuses([
        await bob('GET', `/threads/${thread.thread_id}`),
        await bob('GET', `/v1/sessions/${s}`),
        await bob('GET', '/store/items?namespace=shared&key=k'),
      ]),
    ).toEqual([200, 200, 200]);
    expect(statuses([await eve('GET', `/threads/${thread.thread_id}`), await eve('GET', `/v1/sessions/${s}`)])).toEqual([404, 404]);
  });
});

/** langgraph.json's custom auth (fixtures/graphs/team-auth): users of one team share threads (and v1 sessions). */
describe('users inside a tenant, with a custom auth handler sharing by team', () => {
  const CONFIG = path.join(__dirname, '..', 'fixtures', 'graphs', 'team-auth', 'langgraph.json');
  const svc = useService('users_team', { env: { API_KEYS: `default:${ACME_KEY}`, LANGGRAPH_CONFIG: CONFIG } });
  const as = (token: string) => (method: string, p: string, body?: unknown) => call(svc.url, { bearer: token }, method, p, body);
  const [ann, al, ben] = [as('ann'), as('al'), as('ben')];

  it("shares a thread and a v1 session within the handler's team, and leaves the rest to the owner rule", async () => {
    const thread = (await ann('POST', '/threads', {})).body;
    expect(thread.metadata).toEqual({ team: 'red' });
    const t = thread.thread_id;
    const s = (await ann('POST', '/v1/chat', { message: 'hi', agent: 'echo' })).body.session_id;
    expect(statuses([await al('GET', `/threads/${t}`), await al('GET', `/v1/sessions/${s}`)])).toEqual([200, 200]);
    expect(statuses([await ben('GET', `/threads/${t}`), await ben('GET', `/v1/sessions/${s}`)])).toEqual([404, 404]);
    expect(ids((await al('GET', '/v1/sessions')).body.sessions, 'session_id')).toEqual([s, t].sort());
    expect((await ben('POST', '/threads/count', {})).body).toBe(0);
    // no handler for assistants: the built-in owner rule, even within the team
    const a = (await ann('POST', '/assistants', { graph_id: 'echo' })).body.assistant_id;
    expect(statuses([await ann('GET', `/assistants/${a}`), await al('GET', `/assistants/${a}`)])).toEqual([200, 404]);
    // the service's API key is checked first, on REST v1 too
    expect((await call(svc.url, { key: ACME_KEY }, 'GET', `/v1/sessions/${s}`)).status).toBe(200);
    expect((await call(svc.url, {}, 'GET', '/v1/sessions')).status).toBe(401);
  });
});
