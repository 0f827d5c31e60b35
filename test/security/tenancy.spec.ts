import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Client } from 'pg';

import { ApiKeyRepository } from '../../src/auth/api-key.repository';
import { withRunContext } from '../../src/core/run-context';
import { ContractsService } from '../../src/knowledge/contracts/contracts.service';
import { DocumentsService } from '../../src/knowledge/documents/documents.service';
import { createKnowledgeBaseTool } from '../../src/tools/basic/knowledge-base.tool';
import { createContractTools } from '../../src/tools/contract/contract-tools';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase, uniqueQueuePrefix } from '../support/infra';
import type { ChatRequest } from '../support/model-server';
import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { type RunningApp, startApp } from '../support/test-app';

const ACME = 'acme-key-0123456789abcdef';
const GLOBEX = 'globex-key-0123456789abcdef';
const HANDBOOK = '# 휴가 정책\n\n연차 휴가는 입사 1년 후 15일이 주어진다. ACME-SECRET-PASSAGE 연차는 다음 해 3월까지 이월할 수 있다.';
const fixture = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', 'contracts', name), 'utf8');
const systemOf = (r: ChatRequest) => String(r.messages.find((m) => m.role === 'system')?.content ?? '');

type Res = { status: number; body: any; headers: Headers };

/** HTTP as a given key (`x-api-key` or `Authorization: Bearer`), or without one. */
async function call(base: string, key: string | null, method: string, path: string, body?: unknown, bearer = false): Promise<Res> {
  const headers: Record<string, string> = {};
  if (key) headers[bearer ? 'authorization' : 'x-api-key'] = bearer ? `Bearer ${key}` : key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** Two tenants with keys on one service: nothing of one is visible to, or changeable by, the other. */
describe('tenants and API keys', () => {
  const svc = useService('tenancy', { env: { API_KEYS: `acme:${ACME},globex:${GLOBEX}`, ...SCRIPTED_LLM }, model: { resetEach: true } });
  const { model } = svc;
  const acme = (method: string, path: string, body?: unknown) => call(svc.url, ACME, method, path, body);
  const globex = (method: string, path: string, body?: unknown) => call(svc.url, GLOBEX, method, path, body);

  beforeEach(() => {
    model.setResponder(() => ({ content: 'ok' }));
  });

  it('answers 401 UNAUTHORIZED without a key or with a wrong one, on every kind of route', async () => {
    for (const [method, path] of [
      ['POST', '/v1/chat'],
      ['POST', '/v1/jobs'],
      ['GET', '/v1/agents'],
      ['GET', '/v1/documents'],
      ['GET', '/v1/contracts'],
      ['GET', '/v1/sessions/user-session-123'],
      ['GET', '/v1/jobs/7b0f4bde-0000-4000-8000-000000000000'],
      ['GET', '/metrics'],
      ['GET', '/docs'],
      ['GET', '/docs/openapi.json'],
    ]) {
      for (const key of [null, 'wrong-key-0123456789abcdef', `${ACME}x`]) {
        const res = await call(svc.url, key, method, path, method === 'POST' ? { message: 'hi' } : undefined);
        expect({ path, status: res.status, code: res.body?.error?.code }).toEqual({ path, status: 401, code: 'UNAUTHORIZED' });
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
      }
    }
    expect(model.callCount).toBe(0);
  });

  it('accepts a key as x-api-key or as a Bearer token; /health stays open; /metrics and /docs need a key', async () => {
    expect((await call(svc.url, ACME, 'GET', '/v1/agents')).status).toBe(200);
    expect((await call(svc.url, GLOBEX, 'GET', '/v1/agents', undefined, true)).status).toBe(200);
    expect((await call(svc.url, null, 'GET', '/health/live')).status).toBe(200);
    expect([200, 503]).toContain((await call(svc.url, null, 'GET', '/health/ready')).status);
    expect((await call(svc.url, ACME, 'GET', '/metrics')).status).toBe(200);
    const openapi = await call(svc.url, ACME, 'GET', '/docs/openapi.json');
    expect(openapi.status).toBe(200);
    expect(openapi.body.security).toEqual([{ bearer: [] }, { 'x-api-key': [] }]);
  });

  it("answers 404 for another tenant's session, run and job on every endpoint, and leaves them untouched", async () => {
    const turn = await acme('POST', '/v1/chat', { message: 'hello there', agent: 'react' });
    expect(turn.status).toBe(200);
    const { session_id: sid, run_id: rid } = turn.body;
    const job = await acme('POST', '/v1/jobs', { message: 'and again', session_id: sid });
    expect(job.status).toBe(202);

    const notFound = async (res: Res, code: string) =>
      expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 404, code });
    await notFound(await globex('POST', '/v1/chat', { message: 'let me in', session_id: sid }), 'SESSION_NOT_FOUND');
    await notFound(await globex('POST', '/v1/chat/stream', { message: 'let me in', session_id: sid }), 'SESSION_NOT_FOUND');
    await notFound(await globex('POST', '/v1/jobs', { message: 'let me in', session_id: sid }), 'SESSION_NOT_FOUND');
    await notFound(await globex('GET', `/v1/sessions/${sid}`), 'SESSION_NOT_FOUND');
    await notFound(await globex('GET', `/v1/sessions/${sid}/result`), 'SESSION_NOT_FOUND');
    await notFound(await globex('GET', `/v1/sessions/${sid}/runs/${rid}/trace`), 'SESSION_NOT_FOUND');
    await notFound(await globex('DELETE', `/v1/sessions/${sid}`), 'SESSION_NOT_FOUND');
    await notFound(await globex('GET', `/v1/jobs/${job.body.job_id}`), 'JOB_NOT_FOUND');
    await notFound(await globex('GET', `/v1/jobs/${job.body.job_id}/events`), 'JOB_NOT_FOUND');
    await notFound(await globex('POST', `/v1/jobs/${job.body.job_id}/cancel`), 'JOB_NOT_FOUND');
    await notFound(await globex('POST', `/v1/jobs/${job.body.job_id}/approve`), 'JOB_NOT_FOUND');
    await notFound(await globex('POST', `/v1/jobs/${job.body.job_id}/reject`), 'JOB_NOT_FOUND');
    // globex's own session cannot reach acme's run through the trace route either
    const own = await globex('POST', '/v1/chat', { message: 'my own turn', agent: 'react' });
    await notFound(await globex('GET', `/v1/sessions/${own.body.session_id}/runs/${rid}/trace`), 'RUN_NOT_FOUND');

    // acme still has everything: both turns, nothing from globex, the job not cancelled
    const done = await acme('GET', `/v1/jobs/${job.body.job_id}/events`);
    expect(done.status).toBe(200);
    expect((await acme('GET', `/v1/jobs/${job.body.job_id}`)).body.status).toBe('completed');
    const session = await acme('GET', `/v1/sessions/${sid}`);
    expect(session.status).toBe(200);
    expect(session.body.messages.map((m: any) => m.content)).toEqual(['hello there', 'ok', 'and again', 'ok']);
    expect((await acme('GET', `/v1/sessions/${sid}/runs/${rid}/trace`)).status).toBe(200);
  });

  it("keeps contracts and documents apart: another tenant's ids are 404, lists show only one's own", async () => {
    const contract = await acme('POST', '/v1/contracts', { title: '용역계약서', content: fixture('service-agreement.md') });
    expect(contract.status).toBe(201);
    const cid = contract.body.contract_id;
    const doc = await acme('POST', '/v1/documents', { title: '사내 휴가 규정', content: HANDBOOK, source: 'handbook.md' });
    expect(doc.status).toBe(201);

    expect((await globex('GET', `/v1/contracts/${cid}`)).body.error.code).toBe('CONTRACT_NOT_FOUND');
    expect((await globex('DELETE', `/v1/contracts/${cid}`)).status).toBe(404);
    expect((await globex('GET', '/v1/contracts')).body.contracts).toEqual([]);
    expect((await globex('GET', '/v1/documents')).body.documents).toEqual([]);
    expect((await globex('DELETE', `/v1/documents/${doc.body.document_id}`)).status).toBe(404);
    const chat = await globex('POST', '/v1/chat', { message: '해지 조건이 뭐야?', agent: 'contract-qa', contract_id: cid });
    expect({ status: chat.status, code: chat.body.error?.code }).toEqual({ status: 404, code: 'CONTRACT_NOT_FOUND' });
    expect(model.callCount).toBe(0);

    expect((await acme('GET', `/v1/contracts/${cid}`)).status).toBe(200);
    expect((await acme('GET', '/v1/contracts')).body.contracts.map((c: any) => c.contract_id)).toEqual([cid]);
    expect((await acme('GET', '/v1/documents')).body.documents.map((d: any) => d.document_id)).toEqual([doc.body.document_id]);

    // the contract tools of a chat turn see the tenant's contract (the tenant reaches them in the run context)
    model.setResponder(undefined);
    model.enqueue({ content: '제5조: 계약금액은 1억 2천만 원입니다.' });
    const own = await acme('POST', '/v1/chat', { message: '제5조 알려줘', agent: 'contract-qa', contract_id: cid });
    expect(own.status).toBe(200);
    expect(own.body.sources).toEqual(expect.arrayContaining([expect.objectContaining({ ref: '제5조', contract_id: cid })]));
  });

  it('retrieval never crosses tenants: RAG turns, search_knowledge_base and the contract tools', async () => {
    const cid = (await acme('GET', '/v1/contracts')).body.contracts[0].contract_id as string;
    // a RAG turn of globex does not see acme's handbook; acme's does
    await globex('POST', '/v1/documents', {
      title: '출장 규정',
      content: '# 출장\n\n출장비는 사후 정산한다. 휴가 정책은 인사팀에 문의한다.',
    });
    await globex('POST', '/v1/chat', { message: '회사 휴가 정책이 뭐야?', agent: 'assistant' });
    await acme('POST', '/v1/chat', { message: '회사 휴가 정책이 뭐야?', agent: 'assistant' });
    const prompts = model.requests.map((r) => JSON.stringify(r.messages));
    expect(prompts.length).toBeGreaterThanOrEqual(2);
    const globexPrompts = prompts.slice(
      0,
      prompts.findIndex((p) => p.includes('ACME-SECRET-PASSAGE')),
    );
    expect(globexPrompts.length).toBeGreaterThan(0);
    expect(globexPrompts.join('\n')).not.toContain('ACME-SECRET-PASSAGE');
    expect(systemOf(model.requests.at(-1)!)).toContain('ACME-SECRET-PASSAGE');

    // the tools themselves, as a graph calls them: only the run's tenant (its run context)
    const kb = createKnowledgeBaseTool(svc.app.get(DocumentsService));
    const asTenant = (tenantId: string) => ({ configurable: withRunContext({ tenantId, runId: 'tenancy-test' }) });
    expect(String(await kb.invoke({ query: '연차 휴가' }, asTenant('acme')))).toContain('ACME-SECRET-PASSAGE');
    expect(String(await kb.invoke({ query: '연차 휴가' }, asTenant('globex')))).not.toContain('ACME-SECRET-PASSAGE');
    expect(String(await kb.invoke({ query: '연차 휴가' }, asTenant('default')))).not.toContain('ACME-SECRET-PASSAGE');

    const tools = new Map(createContractTools(svc.app.get(ContractsService)).map((t) => [t.name, t]));
    const structure = (await tools.get('get_contract_structure')!.invoke({ contract_id: cid }, asTenant('acme'))) as any;
    expect(structure.hits.length).toBeGreaterThan(5);
    await expect(tools.get('get_contract_structure')!.invoke({ contract_id: cid }, asTenant('globex'))).rejects.toThrow(/does not exist/);
    const search = (tenant: string) =>
      tools
        .get('hybrid_search')!
        .invoke({ contract_id: cid, topics: [{ topic_name: '해지', queries: ['계약 해지'] }] }, asTenant(tenant)) as Promise<any>;
    expect((await search('acme')).hits.length).toBeGreaterThan(0);
    expect((await search('globex')).hits).toEqual([]);
    const byIndex = (tenant: string) =>
      tools
        .get('get_article_by_index')!
        .invoke({ contract_id: cid, article_numbers: [5], exhibit_numbers: [1] }, asTenant(tenant)) as Promise<any>;
    expect((await byIndex('acme')).articles).toHaveLength(1);
    expect(await byIndex('globex')).toMatchObject({ articles: [], exhibits: [] });
    const byTitle = (await tools.get('get_article_by_title')!.invoke({ contract_id: cid, titles: ['해지'] }, asTenant('globex'))) as any;
    expect(byTitle.articles).toEqual([]);
    const standard = (await tools.get('lookup_standard_contract')!.invoke({ contract_id: cid, topic: '해지' }, asTenant('globex'))) as any;
    expect(standard.articles).toEqual([]);
  });

  it('a client-chosen session id starts a session per tenant: the same id in two tenants is two sessions', async () => {
    const a1 = await acme('POST', '/v1/chat', { message: 'acme first', session_id: 'user-session-123', agent: 'react' });
    expect(a1.status).toBe(200);
    expect(a1.body.session_id).toBe('user-session-123');
    const g1 = await globex('POST', '/v1/chat', { message: 'globex first', session_id: 'user-session-123', agent: 'assistant' });
    expect(g1.status).toBe(200);
    expect(g1.body).toMatchObject({ session_id: 'user-session-123', agent: 'assistant' });
    const a2 = await acme('POST', '/v1/jobs', { message: 'acme second', session_id: 'user-session-123' });
    expect(a2.status).toBe(202);
    await acme('GET', `/v1/jobs/${a2.body.job_id}/events`);

    const acmeSession = (await acme('GET', '/v1/sessions/user-session-123')).body;
    const globexSession = (await globex('GET', '/v1/sessions/user-session-123')).body;
    expect(acmeSession.agent).toBe('react');
    expect(acmeSession.messages.map((m: any) => m.content)).toEqual(['acme first', 'ok', 'acme second', 'ok']);
    expect(globexSession.agent).toBe('assistant');
    expect(globexSession.messages.map((m: any) => m.content)).toEqual(['globex first', 'ok']);
    // the agent of an existing session still cannot change
    const mismatch = await acme('POST', '/v1/chat', { message: 'switch', session_id: 'user-session-123', agent: 'assistant' });
    expect({ status: mismatch.status, code: mismatch.body.error.code }).toEqual({ status: 409, code: 'SESSION_AGENT_MISMATCH' });
    // deleting one tenant's session leaves the other's (and its checkpoints) alone
    expect((await globex('DELETE', '/v1/sessions/user-session-123')).status).toBe(204);
    expect((await globex('GET', '/v1/sessions/user-session-123')).status).toBe(404);
    expect((await acme('GET', '/v1/sessions/user-session-123')).body.messages).toHaveLength(4);
    const a3 = await acme('POST', '/v1/chat', { message: 'acme third', session_id: 'user-session-123' });
    const history = JSON.stringify(model.requests.at(-1)!.messages);
    expect(a3.status).toBe(200);
    expect(history).toContain('acme second'); // the checkpoint thread survived the other tenant's delete
    expect(history).not.toContain('globex first');
  });

  it('keys from the api_keys table work at once and stop working when revoked', async () => {
    const pg = new Client({ connectionString: svc.db.url });
    await pg.connect();
    try {
      const store = new ApiKeyRepository(async (sql, params) => (await pg.query(sql, params)).rows);
      const { id, key } = await store.create('initech', 'ci');
      const rows = await store.list('initech');
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(key); // only the hash is stored
      const own = await call(svc.url, key, 'POST', '/v1/chat', { message: 'initech here', agent: 'react' }, true);
      expect(own.status).toBe(200);
      expect((await acme('GET', `/v1/sessions/${own.body.session_id}`)).status).toBe(404);
      expect((await call(svc.url, key, 'GET', `/v1/sessions/${own.body.session_id}`)).status).toBe(200);
      expect(await store.revoke('initech', id)).toBe(true);
      expect((await call(svc.url, key, 'GET', '/v1/agents')).status).toBe(401);
    } finally {
      await pg.end();
    }
  });
});

/** RATE_LIMIT_PER_MINUTE per key, counted in Redis so that every API process shares one budget. */
describe('rate limit per key', () => {
  let db: TestDatabase;
  const apps: RunningApp[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('ratelimit');
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: uniqueQueuePrefix('ratelimit'),
      API_KEYS: `acme:${ACME},globex:${GLOBEX}`,
      RATE_LIMIT_PER_MINUTE: '4',
    };
    apps.push(await startApp(env));
    apps.push(await startApp(env));
  });

  afterAll(async () => {
    for (const a of apps) await a.close();
    await db?.drop();
  });

  it('answers 429 with retry-after once a key has used its budget, across processes; other keys and /health go on', async () => {
    const [one, two] = apps.map((a) => a.url);
    const statuses: number[] = [];
    for (const base of [one, two, one, two]) statuses.push((await call(base, ACME, 'GET', '/v1/agents')).status);
    expect(statuses).toEqual([200, 200, 200, 200]);
    const limited = await call(two, ACME, 'GET', '/v1/agents');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('TOO_MANY_REQUESTS');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await call(one, ACME, 'POST', '/v1/chat', { message: 'hi' })).status).toBe(429);
    expect((await call(one, GLOBEX, 'GET', '/v1/agents')).status).toBe(200);
    for (let i = 0; i < 6; i++) expect((await call(one, null, 'GET', '/health/live')).status).toBe(200);
  });
});

/** What the process writes to stdout and stderr while `fn` runs. */
async function captureOutput(fn: () => Promise<void>): Promise<string> {
  const chunks: string[] = [];
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => chunks.push(String(c)) > 0);
  const err = jest.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => chunks.push(String(c)) > 0);
  try {
    await fn();
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return chunks.join('');
}

describe('start-up and logs', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('tenancy_logs');
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('without keys: says so at start-up and serves everyone as tenant `default`', async () => {
    let svc: RunningApp | undefined;
    const output = await captureOutput(async () => {
      svc = await startApp({ DATABASE_URL: db.url, LOG_LEVEL: 'warn' });
    });
    try {
      expect(output).toMatch(/No API keys configured[^\n]*tenant \\?"default\\?"/); // a JSON log line escapes the quotes
      const turn = await call(svc!.url, null, 'POST', '/v1/chat', { message: '1 + 1', agent: 'react' });
      expect(turn.status).toBe(200);
      expect((await call(svc!.url, null, 'GET', `/v1/sessions/${turn.body.session_id}`)).status).toBe(200);
      expect((await call(svc!.url, null, 'GET', '/metrics')).status).toBe(200);
    } finally {
      await svc?.close();
    }
  });

  it('never writes a key to the logs, even at the most verbose level and for refused keys', async () => {
    const wrong = 'wrong-key-fedcba9876543210';
    const output = await captureOutput(async () => {
      const svc = await startApp({ DATABASE_URL: db.url, LOG_LEVEL: 'verbose', API_KEYS: `acme:${ACME}`, METRICS_PUBLIC: 'true' });
      try {
        expect((await call(svc.url, ACME, 'POST', '/v1/chat', { message: '2 + 2', agent: 'react' })).status).toBe(200);
        expect((await call(svc.url, wrong, 'GET', '/v1/agents', undefined, true)).status).toBe(401);
        expect((await call(svc.url, null, 'GET', '/metrics')).status).toBe(200);
        expect((await call(svc.url, null, 'GET', '/docs')).status).toBe(401);
      } finally {
        await svc.close();
      }
    });
    expect(output.length).toBeGreaterThan(0);
    expect(output).toMatch(/API keys required/);
    expect(output).not.toContain(ACME);
    expect(output).not.toContain(wrong);
  });
});

/** The LLM cache (Redis) answers a repeated prompt only within the tenant that first asked it. */
describe('LLM cache per tenant', () => {
  const svc = useService('tenancy_cache', {
    env: { API_KEYS: `acme:${ACME},globex:${GLOBEX}`, LLM_MODEL: 'm', LLM_MAX_RETRIES: '0', LLM_CACHE_TTL_SECONDS: '60' },
    model: true,
    redis: true,
  });
  const { model } = svc;

  it("never serves one tenant's cached answer to another", async () => {
    const ask = (key: string) => call(svc.url, key, 'POST', '/v1/chat', { message: 'Tell me the ACME secret plan', agent: 'react' });
    model.enqueue({ content: 'ACME plan: ship on Friday.' });
    expect((await ask(ACME)).body).toMatchObject({ response: 'ACME plan: ship on Friday.', llm_calls: 1 });
    const again = await ask(ACME); // another session of the same tenant: from the cache
    expect(again.body).toMatchObject({ response: 'ACME plan: ship on Friday.' });
    expect(model.callCount).toBe(1);
    model.enqueue({ content: 'I know nothing about that.' });
    const other = await ask(GLOBEX);
    expect(other.body.response).toBe('I know nothing about that.');
    expect(model.callCount).toBe(2);
  });
});
