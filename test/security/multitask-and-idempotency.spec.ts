import { randomUUID } from 'node:crypto';
import path from 'node:path';

import { type JWTPayload } from 'jose';
import { Client } from 'pg';

import { SCRIPTED_LLM, type ServiceHandle, useService } from '../support/service-fixture';
import { newKey, TokenIssuer } from '../support/token-issuer';

const KEY_1 = 'acme-key-one-0123456789';
const KEY_2 = 'acme-key-two-0123456789';
const FIXTURES = path.join(__dirname, '..', 'fixtures', 'graphs');
/** the fixture's ticker: ten ticks `ms` apart, so the accepted run is still in flight while the others arrive */
const SLOW = { assistant_id: 'slow', input: { ms: 150 } };

type Res = { status: number; body: any };
type Auth = { bearer?: string; key?: string; idempotencyKey?: string };

/** HTTP as a caller: a bearer token or an API key, with an `Idempotency-Key` when given; SSE bodies stay text. */
async function call(base: string, auth: Auth, method: string, p: string, body?: unknown): Promise<Res> {
  const headers: Record<string, string> = {};
  if (auth.bearer) headers.authorization = `Bearer ${auth.bearer}`;
  if (auth.key) headers['x-api-key'] = auth.key;
  if (auth.idempotencyKey) headers['idempotency-key'] = auth.idempotencyKey;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const json = (res.headers.get('content-type') ?? '').includes('json');
  return { status: res.status, body: text && json ? JSON.parse(text) : text || null };
}

/** One query against the service's database, as the operator would read it (the effect, not the answer). */
async function query<T = any>(svc: ServiceHandle, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new Client({ connectionString: svc.db.url });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end();
  }
}

const count = (statuses: number[], s: number) => statuses.filter((x) => x === s).length;

/** `n` requests at once; their statuses. */
async function burst(n: number, send: () => Promise<Res>): Promise<Res[]> {
  return Promise.all(Array.from({ length: n }, send));
}

/**
 * 20 concurrent `reject` runs on one thread through each run-creating route: exactly one accepted, 19 × 409 and
 * exactly one run row (read from the database); then the thread is free again once that run has ended.
 */
function rejectRaces(svc: () => ServiceHandle, key: string) {
  const as = (method: string, p: string, body?: unknown) => call(svc().url, { key }, method, p, body);
  const runRows = async (thread: string) =>
    (await query<{ n: number }>(svc(), `SELECT count(*)::int AS n FROM runs WHERE session_id = $1`, [thread]))[0].n;

  it.each([
    ['POST /threads/{id}/runs', 'runs', 200],
    ['POST /threads/{id}/runs/wait', 'runs/wait', 200],
    ['POST /threads/{id}/runs/stream', 'runs/stream', 200],
  ])('%s: 20 concurrent reject runs on one thread → one accepted, 19 × 409, one run row', async (_name, route, ok) => {
    const thread = (await as('POST', '/threads', {})).body.thread_id as string;
    const answers = await burst(20, () => as('POST', `/threads/${thread}/${route}`, { ...SLOW, multitask_strategy: 'reject' }));
    const statuses = answers.map((a) => a.status);
    expect([count(statuses, ok), count(statuses, 409)]).toEqual([1, 19]);
    // the dialect's own refusal, nothing else in it (no stack, no SQL)
    for (const refused of answers.filter((a) => a.status === 409)) {
      const text = `Thread ${thread} is busy with a run`;
      expect(refused.body).toEqual({ detail: text, error: { code: 'THREAD_BUSY', message: text } });
    }
    expect(await runRows(thread)).toBe(1);
    // the default strategy is reject too, and the thread takes runs again once the accepted one has ended
    const [run] = (await as('GET', `/threads/${thread}/runs`)).body as Array<{ run_id: string }>;
    await as('GET', `/threads/${thread}/runs/${run.run_id}/join`);
    expect((await as('POST', `/threads/${thread}/runs/wait`, { assistant_id: 'slow', input: { ms: 1 } })).status).toBe(200);
    expect(await runRows(thread)).toBe(2);
  });

  it('a thread created by the runs themselves (if_not_exists: create): 20 concurrent reject runs → one accepted', async () => {
    const thread = randomUUID();
    const answers = await burst(20, () => as('POST', `/threads/${thread}/runs`, { ...SLOW, if_not_exists: 'create' }));
    expect([
      count(
        answers.map((a) => a.status),
        200,
      ),
      count(
        answers.map((a) => a.status),
        409,
      ),
    ]).toEqual([1, 19]);
    expect(await runRows(thread)).toBe(1);
    await as('GET', `/threads/${thread}/runs/${answers.find((a) => a.status === 200)!.body.run_id}/join`);
  });

  it('enqueue and rollback still work beside it: five queued behind, then all six rolled back', async () => {
    const thread = (await as('POST', '/threads', {})).body.thread_id as string;
    const first = (await as('POST', `/threads/${thread}/runs`, SLOW)).body.run_id as string;
    const queued = await burst(5, () => as('POST', `/threads/${thread}/runs`, { ...SLOW, multitask_strategy: 'enqueue' }));
    expect(queued.map((q) => q.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await runRows(thread)).toBe(6);
    const last = await as('POST', `/threads/${thread}/runs`, { assistant_id: 'slow', input: { ms: 1 }, multitask_strategy: 'rollback' });
    expect(last.status).toBe(200);
    await as('GET', `/threads/${thread}/runs/${last.body.run_id}/join`);
    // the first and the five queued are gone (rolled back), the last one ran alone
    const rows = await query(svc(), `SELECT id, status FROM runs WHERE session_id = $1`, [thread]);
    expect(rows).toEqual([{ id: last.body.run_id, status: 'completed' }]);
    expect((await as('GET', `/threads/${thread}/runs/${first}`)).status).toBe(404);
  });
}

describe('multitask reject under concurrency (Postgres, in-process queue)', () => {
  const svc = useService('mt_reject', {
    env: { API_KEYS: `acme:${KEY_1}`, LANGGRAPH_CONFIG: path.join(FIXTURES, 'langgraph.runs.json') },
  });
  rejectRaces(() => svc, KEY_1);
});

describe('multitask reject under concurrency (Postgres, BullMQ on Redis)', () => {
  const svc = useService('mt_reject_bull', {
    redis: true,
    env: { API_KEYS: `acme:${KEY_1}`, LANGGRAPH_CONFIG: path.join(FIXTURES, 'langgraph.runs.json') },
  });
  const as = (method: string, p: string, body?: unknown) => call(svc.url, { key: KEY_1 }, method, p, body);

  it('20 concurrent reject background runs, queued through BullMQ → one accepted, one run row, and it runs', async () => {
    const thread = (await as('POST', '/threads', {})).body.thread_id as string;
    const answers = await burst(20, () => as('POST', `/threads/${thread}/runs`, SLOW));
    expect([
      count(
        answers.map((a) => a.status),
        200,
      ),
      count(
        answers.map((a) => a.status),
        409,
      ),
    ]).toEqual([1, 19]);
    const run = answers.find((a) => a.status === 200)!.body.run_id as string;
    expect(await query(svc, `SELECT id FROM runs WHERE session_id = $1`, [thread])).toEqual([{ id: run }]);
    expect((await as('GET', `/threads/${thread}/runs/${run}/join`)).body).toMatchObject({ ticks: 10 });
  });
});

describe('Idempotency-Key per principal (Postgres)', () => {
  const issuer = new TokenIssuer();
  beforeAll(async () => {
    await issuer.start();
    issuer.published = [await newKey('k1')];
  });
  afterAll(() => issuer.stop());
  const svc = useService('idem_principal', {
    model: { resetEach: true },
    env: () => ({
      ...SCRIPTED_LLM,
      API_KEYS: `acme:${KEY_1},acme:${KEY_2}`,
      AUTH_ISSUER: issuer.url,
      AUTH_AUDIENCE: issuer.audience,
    }),
  });
  const user = async (sub: string, idempotencyKey: string) => {
    const bearer = await issuer.sign({ tenant_id: 'acme', sub, scope: 'read write' } satisfies JWTPayload);
    return (method: string, p: string, body?: unknown) => call(svc.url, { bearer, idempotencyKey }, method, p, body);
  };
  /** each model call answers with its own number: two executions can never give the same answer */
  const numbered = () => {
    let n = 0;
    svc.model.setResponder(() => ({ content: `answer #${++n}` }));
  };

  it('POST /v1/chat: 10 + 10 concurrent same-key requests by two users → two runs, each user its own answer and session', async () => {
    numbered();
    svc.model.latencyMs = 200; // the first runs are still running while the others arrive
    const body = { message: 'same words, same key', agent: 'react' };
    const [alice, bob] = [await user('alice', 'shared-chat-key'), await user('bob', 'shared-chat-key')];
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? bob : alice)('POST', '/v1/chat', body)));
    svc.model.latencyMs = 0;
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    const of = (parity: number) => answers.filter((_, i) => i % 2 === parity).map((a) => a.body);
    const [a, b] = [of(0), of(1)];
    for (const mine of [a, b]) for (const r of mine) expect(r).toEqual(mine[0]); // every repeat: the same answer
    expect(a[0].run_id).not.toBe(b[0].run_id);
    expect(a[0].session_id).not.toBe(b[0].session_id);
    expect(a[0].response).not.toBe(b[0].response);
    // the effect: exactly two runs (no loser's run or session left behind), each owned by its caller
    const rows = await query(svc, `SELECT id, owner, idempotency_scope FROM runs WHERE input->>'message' = $1 ORDER BY owner`, [
      body.message,
    ]);
    expect(rows).toEqual([
      { id: a[0].run_id, owner: 'alice', idempotency_scope: 'user:alice' },
      { id: b[0].run_id, owner: 'bob', idempotency_scope: 'user:bob' },
    ]);
    expect(
      (await query(svc, `SELECT count(*)::int AS n FROM sessions WHERE id = ANY($1)`, [[a[0].session_id, b[0].session_id]]))[0].n,
    ).toBe(2);
    // bob cannot reach alice's run or session, neither through the key nor by id
    expect((await bob('POST', '/v1/chat', body)).body.run_id).toBe(b[0].run_id);
    expect((await bob('GET', `/v1/jobs/${a[0].run_id}`)).status).toBe(404);
    expect((await bob('GET', `/v1/sessions/${a[0].session_id}`)).status).toBe(404);
    expect((await alice('GET', `/v1/jobs/${a[0].run_id}`)).status).toBe(200);
    // another user's different request under the key is a new key, not IDEMPOTENCY_KEY_REUSED
    const carol = await user('carol', 'shared-chat-key');
    const other = await carol('POST', '/v1/chat', { message: 'something else entirely', agent: 'react' });
    expect(other.status).toBe(200);
    expect([a[0].run_id, b[0].run_id]).not.toContain(other.body.run_id);
    // while the same user's different request under it is still refused
    expect((await alice('POST', '/v1/chat', { message: 'changed my mind', agent: 'react' })).body).toMatchObject({
      error: { code: 'IDEMPOTENCY_KEY_REUSED' },
    });
  });

  it('POST /v1/jobs: 10 + 10 concurrent same-key requests by two API keys of one tenant → two jobs, one per key', async () => {
    numbered();
    const body = { message: 'queued under a shared key', agent: 'react' };
    const send = (key: string) => () => call(svc.url, { key, idempotencyKey: 'shared-job-key' }, 'POST', '/v1/jobs', body);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => send(i % 2 ? KEY_2 : KEY_1)()));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(202));
    const jobs = (parity: number) => new Set(answers.filter((_, i) => i % 2 === parity).map((a) => a.body.job_id));
    const [one, two] = [jobs(0), jobs(1)];
    expect([one.size, two.size]).toEqual([1, 1]);
    expect([...one][0]).not.toBe([...two][0]);
    const rows = await query(svc, `SELECT id, idempotency_scope FROM runs WHERE input->>'message' = $1 ORDER BY idempotency_scope`, [
      body.message,
    ]);
    expect(rows).toEqual([
      { id: [...one][0], idempotency_scope: 'key:env-1' },
      { id: [...two][0], idempotency_scope: 'key:env-2' },
    ]);
    // each key's repeat is its own job
    expect((await send(KEY_2)()).body.job_id).toBe([...two][0]);
  });
});

/** langgraph.json's custom auth (fixtures/graphs/team-auth: ann and al are team red, ben team blue). */
describe('Idempotency-Key per custom-auth identity', () => {
  const CONFIG = path.join(FIXTURES, 'team-auth', 'langgraph.json');
  const svc = useService('idem_custom_auth', { env: { LANGGRAPH_CONFIG: CONFIG } });
  const as = (token: string) => (method: string, p: string, body?: unknown) =>
    call(svc.url, { bearer: token, idempotencyKey: 'team-key' }, method, p, body);

  it('10 + 10 concurrent same-key requests by two identities → two runs; a teammate of ann gets a run of his own too', async () => {
    const body = { message: 'hello under one key', agent: 'echo' };
    const [ann, ben, al] = [as('ann'), as('ben'), as('al')];
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? ben : ann)('POST', '/v1/chat', body)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    const runIds = (parity: number) => new Set(answers.filter((_, i) => i % 2 === parity).map((a) => a.body.run_id));
    expect([runIds(0).size, runIds(1).size]).toEqual([1, 1]);
    const alsRun = (await al('POST', '/v1/chat', body)).body.run_id as string;
    const rows = await query(svc, `SELECT id, idempotency_scope FROM runs WHERE input->>'message' = $1 ORDER BY idempotency_scope`, [
      body.message,
    ]);
    expect(rows).toEqual([
      { id: alsRun, idempotency_scope: 'user:al' },
      { id: [...runIds(0)][0], idempotency_scope: 'user:ann' },
      { id: [...runIds(1)][0], idempotency_scope: 'user:ben' },
    ]);
  });
});
