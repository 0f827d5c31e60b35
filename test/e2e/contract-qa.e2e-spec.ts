import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { createTestDatabase, type TestDatabase } from '../support/infra';
import { type ChatRequest, ScriptedModelServer } from '../support/model-server';
import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { http, type RunningApp, startApp } from '../support/test-app';

const fixture = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', 'contracts', name), 'utf8');
const systemOf = (r: ChatRequest) => String(r.messages[0]?.content ?? '');
const userOf = (r: ChatRequest) => String(r.messages.at(-1)?.content ?? '');

/** Seed 000 end to end over uploaded contracts, with the scripted model server. */
describe('contract-qa agent', () => {
  const svc = useService('contract_qa', { env: { ...SCRIPTED_LLM, MAX_CONTRACT_CHARS: '10000' }, model: { resetEach: true } });
  const { model } = svc;
  let contractId: string;

  beforeAll(async () => {
    const up = await http(svc.url, 'POST', '/v1/contracts', {
      title: '소프트웨어 유지보수 용역계약서',
      content: fixture('service-agreement.md'),
    });
    contractId = up.body.contract_id;
    await http(svc.url, 'POST', '/v1/contracts', {
      title: '표준 용역계약서',
      content: fixture('standard-service-contract.md'),
      kind: 'standard',
    });
  });

  const ask = (message: string, extra: Record<string, unknown> = {}) =>
    http(svc.url, 'POST', '/v1/chat', { agent: 'contract-qa', contract_id: contractId, message, ...extra });
  const trace = (r: { body: { session_id: string; run_id: string } }) =>
    http(svc.url, 'GET', `/v1/sessions/${r.body.session_id}/runs/${r.body.run_id}/trace`).then((t) => t.body);

  it('stores a contract as articles and exhibits, and refuses what is not a contract', async () => {
    const got = await http(svc.url, 'GET', `/v1/contracts/${contractId}`);
    expect(got.body.articles).toHaveLength(16);
    expect(got.body.articles.find((a: any) => a.number === '제10조')).toMatchObject({
      title: '계약의 해지',
      clauses: expect.arrayContaining([expect.stringMatching(/^①/)]),
    });
    expect(got.body.exhibits.map((e: any) => e.number)).toEqual(['별지 1', '별지 2']);
    const bad = await http(svc.url, 'POST', '/v1/contracts', { title: 'memo', content: fixture('not-a-contract.md') });
    expect(bad.status).toBe(422);
    expect(bad.body.error.message).toMatch(/제1조/);
    const big = await http(svc.url, 'POST', '/v1/contracts', { title: 'big', content: '제1조 (목적) '.padEnd(10_001, '가') });
    expect(big.status).toBe(413);
    expect((await http(svc.url, 'GET', '/v1/contracts')).body.contracts).toHaveLength(2);

    // multipart upload of a plain-text file
    const form = new FormData();
    form.append('title', '상가 임대차계약서');
    form.append('file', new Blob([fixture('lease-agreement.txt')], { type: 'text/plain' }), 'lease.txt');
    const uploaded = await fetch(`${svc.url}/v1/contracts`, { method: 'POST', body: form });
    expect(uploaded.status).toBe(201);
    const lease = (await uploaded.json()) as any;
    expect(lease.articles).toHaveLength(10);
    expect(lease.exhibits).toHaveLength(1);
    expect((await http(svc.url, 'DELETE', `/v1/contracts/${lease.contract_id}`)).status).toBe(204);
    const empty = await http(svc.url, 'POST', '/v1/contracts', { title: 'nothing' });
    expect(empty.status).toBe(400);
    expect((await http(svc.url, 'GET', '/v1/contracts/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('walks through the seed: 해지 조건 → hybrid_search ∥ get_contract_structure → get_article_by_index → respond citing 제10조', async () => {
    model.setResponder((req) => {
      const sys = systemOf(req);
      if (sys.includes('충분성')) return { json: { is_sufficient: userOf(req).includes('제10조'), reasoning: 'x', missing_info: null } };
      if (sys.includes('질의응답')) return { content: '제10조에 따르면 30일 전 서면 통지로 해지할 수 있습니다. [제10조 계약의 해지]' };
      return undefined;
    });
    const res = await ask('해지 조건이 뭐야?');
    expect(res.body.response).toMatch(/제10조에 따르면/);
    expect(res.body.sources).toEqual(
      expect.arrayContaining([{ kind: 'contract_article', ref: '제10조', title: '계약의 해지', contract_id: contractId }]),
    );
    const t = await trace(res);
    expect(t.tool_history.slice(0, 2).map((h: any) => h.tool)).toEqual(['hybrid_search', 'get_contract_structure']);
    expect(t.tool_history.slice(2).every((h: any) => h.tool === 'get_article_by_index')).toBe(true);
    expect(t.tool_history.some((h: any) => (h.args.article_numbers ?? []).includes(10))).toBe(true);
    expect(t.decision_log.map((d: any) => d.node)).toEqual(['check_tool_needed', 'planner', 'evaluator', 'planner', 'evaluator']);
    expect(t.details.explored_articles).toContain(10);
    expect(t.details.unexplored_articles).not.toContain(10);
    expect(t.details.unexplored_articles.length).toBeGreaterThan(5);
    expect(userOf(model.requests.at(-1)!)).toMatch(/\[제10조 계약의 해지\][\s\S]*30일/);
    expect(res.body.llm_calls).toBeLessThanOrEqual(6); // seed: check 1 + planner 2 + evaluator 2 + respond 1
  });

  it.each([
    ['해지 조건이 뭐야?', '제10조', /30일/],
    ['계약 기간은 얼마나 돼?', '제3조', /2025년 1월 1일부터 2025년 12월 31일/],
    ['대금 지급이 늦어지면 지연이자는 얼마야?', '제5조', /연 6퍼센트의 지연이자/],
  ])('an evaluator satisfied after the first round still answers from what was found: %s', async (question, article, text) => {
    // a real model often calls the search results sufficient at once
    model.setResponder((req) => {
      const sys = systemOf(req);
      if (sys.includes('충분성')) return { json: { is_sufficient: true, reasoning: '검색 결과로 충분', missing_info: null } };
      if (sys.includes('질의응답')) return { content: `답변: ${article}에 따릅니다.` };
      return undefined;
    });
    const res = await ask(question);
    expect(res.body.response).toBe(`답변: ${article}에 따릅니다.`);
    expect(res.body.sources.map((s: any) => s.ref)).toContain(article);
    // the respond prompt carries the article's full text, fetched by rule after the early stop
    const respond = model.requests.find((r) => systemOf(r).includes('질의응답'))!;
    expect(userOf(respond)).toMatch(new RegExp(`\\[${article} [^\\]]+\\][\\s\\S]*${text.source}`));
    const t = await trace(res);
    expect(t.tool_history.at(-1)).toMatchObject({ tool: 'get_article_by_index', status: 'success' });
    expect(t.decision_log.filter((d: any) => d.node === 'evaluator')).toHaveLength(1);
    expect(res.body.llm_calls).toBe(2); // evaluator + respond: reading the found articles costs no model call
  });

  it('answers a direct article question by rules: no model call before respond', async () => {
    model.enqueue({ content: '제5조: 계약금액은 1억 2천만 원입니다.' });
    const res = await ask('제5조 알려줘');
    expect(res.body).toMatchObject({ llm_calls: 1, sources: [expect.objectContaining({ ref: '제5조' })] });
    expect(model.requests).toHaveLength(1);
    expect(systemOf(model.requests[0])).toContain('계약서 질의응답 전문가');
    expect((await trace(res)).model_calls.map((c: any) => c.node)).toEqual(['respond']);
  });

  it('refuses an out-of-scope question without running the graph', async () => {
    const res = await ask('오늘 서울 날씨 어때?');
    expect(res.body).toMatchObject({ llm_calls: 0, tool_calls: [], metadata: { out_of_scope: true } });
    expect(res.body.response).toMatch(/계약서에 관한 질문에만/);
  });

  it('stops a planner that repeats itself with the duplicate guard', async () => {
    model.setResponder((req) => {
      const sys = systemOf(req);
      if (sys.includes('질문 분석')) return { json: { needs_tools: true, reasoning: '계약 질문' } };
      if (sys.includes('충분성')) return { json: { is_sufficient: false, reasoning: '더 필요', missing_info: '?' } };
      if (sys.includes('계약서 분석 전문가')) return { json: { tool: 'get_contract_structure', args: {}, reasoning: '구조를 다시 본다' } };
      return { content: '수집한 조항으로 답합니다.' };
    });
    const res = await ask('이 계약에서 을이 특히 조심할 부분은?');
    const t = await trace(res);
    expect(t.tool_history.filter((h: any) => h.tool === 'get_contract_structure')).toHaveLength(1);
    expect(t.decision_log.at(-1)).toMatchObject({ node: 'planner', next_tool: null, reason: expect.stringMatching(/duplicate/) });
    // the search found no article about the question (no topic, none of its words): nothing is passed off as an answer
    expect(res.body.response).toBe('계약서에서 질문과 관련된 조항을 찾지 못했습니다. 다른 표현으로 물어보시거나 조 번호를 알려 주세요.');
  });

  it('stops at max_iterations', async () => {
    let n = 0;
    model.setResponder((req) => {
      const sys = systemOf(req);
      if (sys.includes('질문 분석')) return { json: { needs_tools: true, reasoning: '' } };
      if (sys.includes('충분성')) return { json: { is_sufficient: false, reasoning: '부족', missing_info: '더' } };
      if (sys.includes('계약서 분석 전문가'))
        return { json: { tool: 'get_article_by_title', args: { title: `제목${n++}` }, reasoning: '' } };
      return { content: '한도에 도달했습니다.' };
    });
    const res = await ask('이 계약을 전부 분석해서 문제점을 찾아줘');
    const t = await trace(res);
    expect(res.body.metadata.iterations).toBe(5);
    expect(t.decision_log.filter((d: any) => d.node === 'evaluator').at(-1)).toMatchObject({ decision: 'finish', limit_reached: true });
  });
  it('lists exhibits in the structure; lookup_standard_contract takes a standard_contract_id (default the newest); "not found" is not retried', async () => {
    const older = (await http(svc.url, 'GET', '/v1/contracts')).body.contracts.find((c: any) => c.kind === 'standard').contract_id;
    await http(svc.url, 'POST', '/v1/contracts', {
      title: '표준 유지보수계약서 (개정)',
      content: '## 제1조 (목적)\n\n표준B의 목적.\n\n## 제2조 (계약의 해지)\n\n표준B: 당사자는 60일 전에 알리고 해지할 수 있다.\n',
      kind: 'standard',
    });
    const plannerCalls: ChatRequest[] = [];
    const lookups = [
      { standard_contract_id: '00000000-0000-4000-8000-000000000000', user_article_numbers: [10] },
      { standard_contract_id: older, user_article_numbers: [10] },
      { user_article_numbers: [10] },
    ];
    model.setResponder((req) => {
      const sys = systemOf(req);
      if (sys.includes('충분성')) {
        const done = (userOf(req).match(/lookup_standard_contract/g) ?? []).length >= 3;
        return { json: { is_sufficient: done, reasoning: '', missing_info: null } };
      }
      if (sys.includes('계약서 분석 전문가')) {
        plannerCalls.push(req);
        return { json: { tool: 'lookup_standard_contract', args: lookups[plannerCalls.length - 1], reasoning: '표준과 비교' } };
      }
      if (sys.includes('질의응답')) return { content: '비교 결과입니다.' };
      return undefined;
    });
    const res = await ask('해지 조항이 표준계약서와 어떻게 달라?');
    expect(res.body.response).toBe('비교 결과입니다.');
    const t = await trace(res);
    expect(t.details.contract_structure.exhibits).toEqual([
      { number: '별지 1', title: '용역 범위' },
      { number: '별지 2', title: '대금 지급 일정' },
    ]);
    expect(userOf(plannerCalls[0])).toMatch(/별지 1 \(용역 범위\)[\s\S]*별지 2 \(대금 지급 일정\)/);
    const lookedUp = t.tool_history.filter((h: any) => h.tool === 'lookup_standard_contract');
    expect(lookedUp.map((h: any) => [h.status, h.attempts])).toEqual([
      ['error', 1],
      ['success', 1],
      ['success', 1],
    ]);
    const context = userOf(model.requests.at(-1)!);
    expect(context).toMatch(/14일 이상의 기간을 정하여/); // the older standard, chosen by id
    expect(context).toMatch(/표준B: 당사자는 60일 전에/); // the newest, by default
  });
});

describe('contract-qa with the LLM cache and without a model', () => {
  const model = new ScriptedModelServer();
  let db: TestDatabase;
  const apps: RunningApp[] = [];

  beforeAll(async () => {
    await model.start();
    db = await createTestDatabase('contract_qa_cache');
  });

  afterAll(async () => {
    for (const a of apps) await a.close();
    await model.stop();
    await db?.drop();
  });

  it('serves a repeated question from the cache', async () => {
    const svc = await startApp({ DATABASE_URL: db.url, LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'm', LLM_MAX_RETRIES: '0' });
    apps.push(svc);
    const { body } = await http(svc.url, 'POST', '/v1/contracts', { title: '계약', content: fixture('service-agreement.md') });
    model.enqueue({ content: '제7조에 따라 비밀유지 기간은 3년입니다.' });
    const first = await http(svc.url, 'POST', '/v1/chat', { agent: 'contract-qa', contract_id: body.contract_id, message: '제7조 알려줘' });
    const second = await http(svc.url, 'POST', '/v1/chat', {
      agent: 'contract-qa',
      contract_id: body.contract_id,
      message: '제7조 알려줘',
    });
    expect(first.body.llm_calls).toBe(1);
    expect(second.body).toMatchObject({ llm_calls: 0, response: '제7조에 따라 비밀유지 기간은 3년입니다.' });
    expect(model.callCount).toBe(1);
  });

  it('with no model: rules choose the tools and the answer quotes the articles', async () => {
    const svc = await startApp({ DATABASE_URL: db.url });
    apps.push(svc);
    const contracts = (await http(svc.url, 'GET', '/v1/contracts')).body.contracts;
    const res = await http(svc.url, 'POST', '/v1/chat', {
      agent: 'contract-qa',
      contract_id: contracts[0].contract_id,
      message: '해지 조건이 뭐야?',
    });
    expect(res.body.llm_calls).toBe(0);
    expect(res.body.response).toMatch(/\[제10조 계약의 해지\]/);
    expect(res.body.sources.map((s: any) => s.ref)).toContain('제10조');
  });
});
