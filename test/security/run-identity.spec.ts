import path from 'node:path';

import { useService } from '../support/service-fixture';
import { newKey, TokenIssuer } from '../support/token-issuer';

/**
 * `langgraph_auth_*` in a run's `configurable` (what a graph that namespaces memories by user reads, LangGraph
 * Platform's pattern) is set by the service from the request's one principal, for every credential type and both
 * dialects, and never taken from a client: a user naming another user there still runs as themselves.
 */
const FIXTURES = path.join(__dirname, '..', 'fixtures', 'graphs', 'identity');
const ACME_KEY = 'acme-key-0123456789abcdef';
const FORGED = {
  langgraph_auth_user_id: 'bob',
  langgraph_auth_user: { identity: 'bob', team: 'blue' },
  langgraph_auth_permissions: ['admin'],
};

type Res = { status: number; body: any };

async function call(base: string, headers: Record<string, string>, method: string, p: string, body?: unknown): Promise<Res> {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
}

/** what the whoami graph saw, from a LangGraph API `runs/wait` answer */
function seenByGraph(values: any): Record<string, unknown> {
  const messages = values?.messages as Array<{ content: string }>;
  return JSON.parse(messages[messages.length - 1].content);
}

async function waitForJob(base: string, headers: Record<string, string>, jobId: string): Promise<Res> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await call(base, headers, 'GET', `/v1/jobs/${jobId}`);
    if (['completed', 'failed', 'cancelled'].includes(r.body?.status) || Date.now() > deadline) return r;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('run identity with bearer tokens and API keys (queued runs on BullMQ)', () => {
  const issuer = new TokenIssuer();
  beforeAll(async () => {
    await issuer.start();
    issuer.published = [await newKey('k1')];
  });
  afterAll(() => issuer.stop());
  const svc = useService('run_identity_tokens', {
    redis: true,
    env: () => ({
      API_KEYS: `acme:${ACME_KEY}`,
      AUTH_ISSUER: issuer.url,
      AUTH_AUDIENCE: issuer.audience,
      LANGGRAPH_CONFIG: path.join(FIXTURES, 'langgraph.json'),
    }),
  });
  const asUser = async (sub: string) => ({ authorization: `Bearer ${await issuer.sign({ tenant_id: 'acme', sub, scope: 'read write' })}` });
  const input = { messages: [{ role: 'user', content: 'who am I?' }] };

  it('a token user runs as itself on the LangGraph API, whatever langgraph_auth_* the body names', async () => {
    const alice = await asUser('alice');
    const plain = await call(svc.url, alice, 'POST', '/runs/wait', { assistant_id: 'whoami', input });
    expect(plain.status).toBe(200);
    expect(seenByGraph(plain.body)).toMatchObject({
      user_id: 'alice',
      identity: 'alice',
      permissions: ['read', 'write'],
      tenant_id: 'acme',
    });
    const forged = await call(svc.url, alice, 'POST', '/runs/wait', { assistant_id: 'whoami', input, config: { configurable: FORGED } });
    expect(forged.status).toBe(200);
    expect(seenByGraph(forged.body)).toMatchObject({ user_id: 'alice', identity: 'alice', team: null, permissions: ['read', 'write'] });
  });

  it("an assistant's configurable cannot name a user either", async () => {
    const alice = await asUser('alice2');
    const made = await call(svc.url, alice, 'POST', '/assistants', { graph_id: 'whoami', config: { configurable: FORGED } });
    expect(made.status).toBe(200);
    const run = await call(svc.url, alice, 'POST', '/runs/wait', { assistant_id: made.body.assistant_id, input });
    expect(seenByGraph(run.body)).toMatchObject({ user_id: 'alice2', identity: 'alice2' });
  });

  it('an API key (the tenant operator) is nobody: a forged user is dropped, not believed', async () => {
    const key = { 'x-api-key': ACME_KEY };
    const run = await call(svc.url, key, 'POST', '/runs/wait', { assistant_id: 'whoami', input, config: { configurable: FORGED } });
    expect(run.status).toBe(200);
    expect(seenByGraph(run.body)).toEqual({ user_id: null, identity: null, team: null, permissions: null, tenant_id: 'acme' });
  });

  it('REST v1: a chat turn and a queued job (run by the worker later) act for the user who asked', async () => {
    const carol = await asUser('carol');
    const chat = await call(svc.url, carol, 'POST', '/v1/chat', { agent: 'whoami', message: 'who am I?' });
    expect(chat.status).toBe(200);
    expect(JSON.parse(chat.body.response)).toMatchObject({ user_id: 'carol', identity: 'carol' });
    const job = await call(svc.url, carol, 'POST', '/v1/jobs', { agent: 'whoami', message: 'who am I?' });
    expect(job.status).toBe(202);
    const done = await waitForJob(svc.url, carol, job.body.job_id);
    expect(done.body.status).toBe('completed');
    expect(JSON.parse(done.body.result.response)).toMatchObject({ user_id: 'carol', identity: 'carol' });
  });
});

describe("run identity with langgraph.json's custom auth", () => {
  const svc = useService('run_identity_custom', { env: { LANGGRAPH_CONFIG: path.join(FIXTURES, 'langgraph.auth.json') } });
  const input = { messages: [{ role: 'user', content: 'who am I?' }] };

  it("the graph sees the custom auth's user with every field its authenticate returned; a forged one is dropped", async () => {
    const run = await call(svc.url, { authorization: 'Bearer ann' }, 'POST', '/runs/wait', {
      assistant_id: 'whoami',
      input,
      config: { configurable: FORGED },
    });
    expect(run.status).toBe(200);
    expect(seenByGraph(run.body)).toMatchObject({ user_id: 'ann', identity: 'ann', team: 'red', permissions: [] });
  });
});
