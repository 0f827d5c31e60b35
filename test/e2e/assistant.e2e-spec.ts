import type { ChatRequest } from '../support/model-server';
import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { http } from '../support/test-app';

const HANDBOOK = `# 휴가 정책

연차 휴가는 입사 1년 후 15일이 주어진다. 연차는 다음 해 3월까지 이월할 수 있다.

## 병가

병가는 연 10일까지 유급으로 쓸 수 있으며 3일 이상이면 진단서를 낸다.`;

const systemOf = (r: ChatRequest) => String(r.messages.find((m) => m.role === 'system')?.content ?? '');

/** The assistant agent (seed 001) end to end: router, RAG with sources, tools, summarising memory, restarts. */
describe('assistant agent', () => {
  const svc = useService('assistant', { env: { ...SCRIPTED_LLM, DEFAULT_AGENT: 'assistant' }, model: { resetEach: true } });
  const { model } = svc;
  const chat = (body: Record<string, unknown>) => http(svc.url, 'POST', '/v1/chat', { agent: 'assistant', ...body });

  it('greeting: the rules route it, one model call (seed: 2)', async () => {
    model.enqueue({ content: '안녕하세요! 무엇을 도와드릴까요?' });
    const res = await chat({ message: '안녕하세요' });
    expect(res.body).toMatchObject({ response: '안녕하세요! 무엇을 도와드릴까요?', llm_calls: 1, metadata: { route: 'agent' } });
  });

  it('calculator: agent → tools → agent, two model calls (seed: 3)', async () => {
    model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '123 * 456' } }] }, { content: '123 × 456 = 56088 입니다.' });
    const res = await chat({ message: '123 * 456 계산해줘' });
    expect(res.body).toMatchObject({ response: '123 × 456 = 56088 입니다.', llm_calls: 2, tools_used: ['calculator'] });
    expect(model.requests[1].messages.at(-1)).toMatchObject({ role: 'tool', content: '56088' });
  });

  it('cites the documents its search_knowledge_base tool found', async () => {
    await http(svc.url, 'POST', '/v1/documents', {
      title: '출장 규정',
      content: '# 출장비\n\n국내 출장 일비는 하루 3만 원이다.',
      source: 'travel.md',
    });
    model.enqueue({ toolCalls: [{ name: 'search_knowledge_base', args: { query: '출장 일비' } }] }, { content: '하루 3만 원입니다.' });
    const res = await chat({ message: '안녕, 출장 일비가 얼마인지 찾아줄래?' });
    expect(res.body).toMatchObject({ response: '하루 3만 원입니다.', metadata: { route: 'agent' } });
    expect(res.body.sources).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'document', ref: 'travel.md', title: '출장 규정' })]),
    );
  });

  it('manages knowledge-base documents over REST', async () => {
    const bad = await http(svc.url, 'POST', '/v1/documents', { title: ' ', content: 'x' });
    expect(bad.status).toBe(400);
    const created = await http(svc.url, 'POST', '/v1/documents', { title: '사내 휴가 규정', content: HANDBOOK, source: 'handbook.md' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ document_id: expect.any(String), title: '사내 휴가 규정', source: 'handbook.md', chunks: 2 });
    const list = await http(svc.url, 'GET', '/v1/documents');
    expect(list.body.documents.map((d: any) => d.title)).toContain('사내 휴가 규정');
    const tmp = await http(svc.url, 'POST', '/v1/documents', { title: 'temp', content: 'to be deleted' });
    expect((await http(svc.url, 'DELETE', `/v1/documents/${tmp.body.document_id}`)).status).toBe(204);
    expect((await http(svc.url, 'DELETE', `/v1/documents/${tmp.body.document_id}`)).status).toBe(404);
  });

  it('RAG: retrieval without a model, the passage in the system prompt, sources returned (seed: 2 calls)', async () => {
    model.enqueue({ content: '연차는 입사 1년 후 15일입니다 (사내 휴가 규정).' });
    const res = await chat({ message: '회사 휴가 정책이 뭐야?' });
    expect(res.body).toMatchObject({ llm_calls: 1, metadata: { route: 'rag' } });
    expect(res.body.sources).toEqual([expect.objectContaining({ kind: 'document', ref: 'handbook.md', title: '사내 휴가 규정' })]);
    expect(systemOf(model.requests[0])).toMatch(/\[참고 문서\][\s\S]*연차 휴가는 입사 1년 후 15일/);
  });

  it('asks the model to route when the rules cannot tell', async () => {
    model.enqueue({ json: { route: 'agent', reason: '일반 질문' } }, { content: '좋은 질문이네요.' });
    const res = await chat({ message: '프로젝트 일정 관리는 어떻게 하면 좋을까?' });
    expect(res.body).toMatchObject({ llm_calls: 2, metadata: { route: 'agent', route_reason: '일반 질문' } });
    const trace = await http(svc.url, 'GET', `/v1/sessions/${res.body.session_id}/runs/${res.body.run_id}/trace`);
    expect(trace.body.model_calls.map((c: any) => c.node)).toEqual(['router', 'agent']);
  });

  it('long conversation: summarises beyond 10 messages, keeps 5, and answers from the summary (seed: 3 calls)', async () => {
    model.setResponder((req) => {
      const sys = systemOf(req);
      if (sys.includes('대화 요약 전문가')) return { content: '사용자 이름은 철수, 프로젝트 마감은 3월 15일.' };
      return { content: `ok: ${req.messages.at(-1)?.content}` };
    });
    const first = await chat({ message: '내 이름은 철수야' });
    const sid = first.body.session_id;
    for (const m of ['프로젝트 마감은 3월 15일이야', '예산은 1억원이야', '팀원은 다섯 명이야', '회의는 매주 월요일이야']) {
      const r = await chat({ message: m, session_id: sid });
      expect(r.body.metadata.summarised).toBe(false);
    }
    model.reset();
    model.setResponder((req) => {
      if (systemOf(req).includes('대화 요약 전문가')) return { content: '사용자 이름은 철수, 프로젝트 마감은 3월 15일.' };
      return { content: '프로젝트 마감일은 3월 15일이라고 하셨습니다.' };
    });
    const res = await chat({ message: '아까 말한 프로젝트 마감일이 언제라고 했지?', session_id: sid });
    expect(res.body).toMatchObject({
      response: '프로젝트 마감일은 3월 15일이라고 하셨습니다.',
      llm_calls: 2,
      metadata: { summarised: true, messages_in_state: 6 },
    });
    expect(model.requests).toHaveLength(2);
    const agentRequest = model.requests[1];
    expect(systemOf(agentRequest)).toContain('[이전 대화 요약]\n[대화 기록 1]\n사용자 이름은 철수, 프로젝트 마감은 3월 15일.');
    expect(agentRequest.messages.filter((m) => m.role !== 'system')).toHaveLength(5);

    const session = await http(svc.url, 'GET', `/v1/sessions/${sid}`);
    expect(session.body.summary).toBe('사용자 이름은 철수, 프로젝트 마감은 3월 15일.');
    expect(session.body.messages).toHaveLength(12); // the full history stays in the messages table
  });

  it('remembers across a restart of the service', async () => {
    model.enqueue({ content: '반가워요 철수님!' });
    const first = await chat({ message: '내 이름은 철수야' });
    await svc.restart();
    model.enqueue({ content: '철수님이라고 하셨습니다.' });
    const second = await chat({ message: '내 이름이 뭐라고 했지?', session_id: first.body.session_id });
    expect(second.body.response).toBe('철수님이라고 하셨습니다.');
    const seen = model.requests[1].messages.map((m) => m.content);
    expect(seen).toEqual(expect.arrayContaining(['내 이름은 철수야', '반가워요 철수님!', '내 이름이 뭐라고 했지?']));
  });
});

describe('assistant agent without a model', () => {
  const svc = useService('assistant_nomodel');

  it('quotes the retrieved passage with its source, and still calculates', async () => {
    await http(svc.url, 'POST', '/v1/documents', { title: '사내 휴가 규정', content: HANDBOOK, source: 'handbook.md' });
    const rag = await http(svc.url, 'POST', '/v1/chat', { agent: 'assistant', message: '병가 규정 알려줘' });
    expect(rag.body.response).toMatch(/병가는 연 10일까지/);
    expect(rag.body.sources[0]).toMatchObject({ title: '사내 휴가 규정' });
    expect(rag.body).toMatchObject({ llm_calls: 0, metadata: { model_used: false } });
    const calc = await http(svc.url, 'POST', '/v1/chat', { agent: 'assistant', message: '15 * 4' });
    expect(calc.body.response).toBe('15 * 4 = 60');
    const sentence = await http(svc.url, 'POST', '/v1/chat', { agent: 'assistant', message: '(12 + 3) * 4는 얼마야?' });
    expect(sentence.body.response).toBe('(12 + 3) * 4의 값은 60입니다.');
  });
});
