import type { ChatRequest } from '../support/model-server';
import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { http } from '../support/test-app';

const systemOf = (r: ChatRequest) => String(r.messages[0]?.content ?? '');
const intent = (o: Record<string, unknown>) => ({ json: { intent: 'new_question', needs_tool: true, constraints: '', ...o } });

/** Seed 004 end to end: every scenario with its model-call count, the audit trail, and fail-closed plans. */
describe('plan-execute agent', () => {
  const svc = useService('plan_execute', { env: SCRIPTED_LLM, model: { resetEach: true } });
  const { model } = svc;

  beforeAll(async () => {
    await http(svc.url, 'POST', '/v1/documents', {
      title: 'LangGraph 소개',
      content: 'LangGraph는 상태 그래프로 에이전트를 만드는 라이브러리다. 노드와 엣지로 흐름을 정의한다. 체크포인터로 상태를 저장한다.',
    });
  });

  const chat = (message: string, session_id?: string) =>
    http(svc.url, 'POST', '/v1/chat', { agent: 'plan-execute', message, ...(session_id ? { session_id } : {}) });
  const trace = (r: { body: { session_id: string; run_id: string } }) =>
    http(svc.url, 'GET', `/v1/sessions/${r.body.session_id}/runs/${r.body.run_id}/trace`).then((t) => t.body);

  it('one tool: intent + planner + final answer = 3 calls; the executor calls no model', async () => {
    model.enqueue(
      intent({ rewritten_query: '1234 × 5678 계산' }),
      { json: [{ step_id: 1, tool: 'calculator', input: '1234 * 5678' }] },
      { content: '1234 × 5678 = 7006652 입니다.' },
    );
    const res = await chat('1234 곱하기 5678은 얼마야?');
    expect(res.body).toMatchObject({
      response: '1234 × 5678 = 7006652 입니다.',
      llm_calls: 3,
      error: null,
      metadata: { intent: 'new_question' },
    });
    expect(systemOf(model.requests[2])).toContain('[step 1: calculator]\n7006652');
    const t = await trace(res);
    expect(t.model_calls.map((c: any) => c.node)).toEqual(['intent_classifier', 'planner', 'final_answer']);
    expect(t.past_steps).toEqual([
      expect.objectContaining({
        step: { step_id: 1, tool: 'calculator', input: '1234 * 5678' },
        status: 'success',
        output: '7006652',
        duration_ms: expect.any(Number),
        started_at: expect.any(String),
      }),
    ]);
    expect(t.plan).toEqual([{ step_id: 1, tool: 'calculator', input: '1234 * 5678' }]);
  });

  it.each([
    ['{"steps": [...]}', { json: { steps: [{ step_id: 1, tool: 'calculator', input: '1234 * 5678' }] } }],
    ['{"plan": [...]} in prose', { content: '계획입니다:\n{"plan": [{"step_id": 1, "tool": "calculator", "input": "1234 * 5678"}]}' }],
  ])('runs a plan given as %s like the bare list (JSON mode returns objects)', async (_shape, plan) => {
    model.enqueue(intent({ rewritten_query: '1234 × 5678 계산' }), plan as any, { content: '7006652 입니다.' });
    const res = await chat('1234 곱하기 5678은 얼마야?');
    expect(res.body).toMatchObject({ response: '7006652 입니다.', error: null, llm_calls: 3 });
    expect((await trace(res)).past_steps).toEqual([expect.objectContaining({ status: 'success', output: '7006652' })]);
  });

  it('chitchat: rules classify, GENERAL_CONVERSATION_PROMPT answers (seed 2, here 1)', async () => {
    model.enqueue({ content: '안녕하세요! 반갑습니다.' });
    const res = await chat('안녕하세요!');
    expect(res.body).toMatchObject({ response: '안녕하세요! 반갑습니다.', llm_calls: 1, metadata: { intent: 'chitchat' } });
    expect(systemOf(model.requests[0])).toContain('단순 대화면 자연스럽게 응답하세요');
  });

  it('content only: a pasted article with no question gets content handling, no tools (seed 2, here 1)', async () => {
    model.enqueue({ content: '이 글은 분기 실적을 다룹니다. 요약이나 번역을 원하시면 말씀해 주세요.' });
    const article = '2025년 3분기 실적 보고. '.repeat(20) + '매출은 전년 대비 12% 증가했고 영업이익률은 8%를 기록했다.';
    const res = await chat(article);
    expect(res.body).toMatchObject({ llm_calls: 1, tool_calls: [], metadata: { content_only: true } });
  });

  it('follow-up: the rewrite keeps earlier constraints', async () => {
    model.enqueue(intent({ rewritten_query: '영등포 견과류 알레르기 안전한 맛집 추천', needs_tool: false }), {
      content: 'A식당, B식당을 추천드립니다.',
    });
    const first = await chat('영등포 견과류 알레르기 안전한 맛집 추천해줘');
    model.reset();
    model.enqueue(
      intent({
        intent: 'follow_up',
        rewritten_query: '영등포 견과류 알레르기 안전한 다른 맛집 추천',
        constraints: '위치(영등포), 제약사항(견과류 알레르기)',
      }),
      { json: [] },
      { content: 'C식당도 견과류를 쓰지 않습니다.' },
    );
    const res = await chat('더 있어?', first.body.session_id);
    expect(res.body).toMatchObject({
      llm_calls: 3,
      metadata: {
        intent: 'follow_up',
        rewritten_query: '영등포 견과류 알레르기 안전한 다른 맛집 추천',
        constraints: expect.stringContaining('견과류'),
      },
    });
    expect(String(model.requests[0].messages.at(-1)!.content)).toMatch(
      /user: 영등포 견과류 알레르기 안전한 맛집 추천해줘[\s\S]*assistant: A식당, B식당을 추천드립니다\.[\s\S]*새 입력: 더 있어\?/,
    );
    expect(String(model.requests[1].messages.at(-1)!.content)).toBe('영등포 견과류 알레르기 안전한 다른 맛집 추천');
  });

  it('chained steps: search, then summarize the search output (input_from)', async () => {
    model.setResponder((req) => {
      const sys = systemOf(req);
      if (sys.includes('의도 분류기')) return intent({ rewritten_query: 'LangGraph 검색 후 요약' });
      if (sys.includes('계획 수립기'))
        return {
          json: [
            { step_id: 1, tool: 'search_knowledge_base', input: 'LangGraph' },
            { step_id: 2, tool: 'summarize', input_from: 'step_1' },
          ],
        };
      if (sys.includes('핵심만')) return { content: 'LangGraph는 상태 그래프 기반 에이전트 라이브러리다.' };
      return { content: 'LangGraph는 상태 그래프로 에이전트를 만드는 라이브러리입니다.' };
    });
    const res = await chat('LangGraph가 뭔지 검색하고 요약해줘');
    expect(res.body.sources).toEqual([expect.objectContaining({ kind: 'document', title: 'LangGraph 소개' })]);
    const t = await trace(res);
    expect(t.past_steps.map((p: any) => [p.step.tool, p.status])).toEqual([
      ['search_knowledge_base', 'success'],
      ['summarize', 'success'],
    ]);
    const summarizeRequest = model.requests.find((r) => systemOf(r).includes('핵심만'))!;
    expect(String(summarizeRequest.messages.at(-1)!.content)).toContain('LangGraph는 상태 그래프로 에이전트를 만드는 라이브러리다');
    // seed: 3 (intent + planner + final); the summarize tool's own model call is metered too
    expect(t.model_calls.map((c: any) => c.node)).toEqual(['intent_classifier', 'planner', 'executor', 'final_answer']);
  });

  it('three tools: still 3 model calls', async () => {
    model.enqueue(
      intent({ rewritten_query: '세 가지 계산과 현재 시각' }),
      {
        json: [
          { step_id: 1, tool: 'calculator', input: '2^10' },
          { step_id: 2, tool: 'calculator', input: '3^5' },
          { step_id: 3, tool: 'get_current_datetime', input: { timezone: 'UTC' } },
        ],
      },
      { content: '1024, 243, 그리고 현재 UTC 시각입니다.' },
    );
    const res = await chat('2의 10제곱, 3의 5제곱, 그리고 지금 UTC 시각 알려줘');
    expect(res.body).toMatchObject({ llm_calls: 3, tools_used: ['calculator', 'get_current_datetime'] });
    expect((await trace(res)).past_steps).toHaveLength(3);
  });

  it('a failure is re-planned once: 4 calls, both attempts in the audit trail', async () => {
    model.enqueue(
      intent({ rewritten_query: '나눗셈' }),
      { json: [{ step_id: 1, tool: 'calculator', input: '1/0' }] },
      { json: [{ step_id: 2, tool: 'calculator', input: '10/4' }] },
      { content: '0으로는 나눌 수 없어 10/4 = 2.5를 계산했습니다.' },
    );
    const res = await chat('나눗셈 좀 해줘');
    expect(res.body).toMatchObject({ llm_calls: 4, error: null, metadata: { replan_count: 1 } });
    const t = await trace(res);
    expect(t.past_steps.map((p: any) => [p.step.step_id, p.status])).toEqual([
      [1, 'failure'],
      [2, 'success'],
    ]);
    expect(t.past_steps[0].output).toMatch(/^Error: calculator: result is Infinity/);
    expect(String(model.requests[2].messages.at(-1)!.content)).toContain('"status":"failure"');
  });

  it.each([
    ['invalid JSON', { content: '[{"step_id": 1, "tool": "calculator", "input": ' }, 'PLAN_INVALID_JSON'],
    ['schema violation', { json: [{ step: 1, tool: 'calculator' }] }, 'PLAN_SCHEMA'],
    [
      'input_from a later step',
      {
        json: [
          { step_id: 1, tool: 'summarize', input_from: 'step_2' },
          { step_id: 2, tool: 'calculator', input: '1' },
        ],
      },
      'PLAN_SCHEMA',
    ],
    [
      'a tool outside the manifest',
      {
        json: [
          { step_id: 1, tool: 'calculator', input: '1+1' },
          { step_id: 2, tool: 'shell', input: 'rm -rf /' },
        ],
      },
      'TOOL_NOT_ALLOWED',
    ],
  ])('fails closed on %s: stops at once, no tool of the plan runs', async (_name, plan, code) => {
    model.enqueue(intent({ rewritten_query: 'x' }), plan as any);
    const res = await chat('복잡한 요청을 처리해줘');
    expect(res.status).toBe(200);
    expect(res.body.error.code).toBe(code);
    expect(res.body.response).toMatch(/^실행이 중단되었습니다/);
    expect(res.body.llm_calls).toBe(2);
    expect((await trace(res)).past_steps).toEqual([]);
    expect((await http(svc.url, 'GET', `/v1/jobs/${res.body.run_id}`)).body.status).toBe('failed');
  });

  it('fails closed when re-planning keeps failing (REPLAN_LIMIT)', async () => {
    model.setResponder((req) => {
      const sys = systemOf(req);
      if (sys.includes('의도 분류기')) return intent({ rewritten_query: '계산' });
      return { json: [{ step_id: 1 + model.requests.length, tool: 'calculator', input: '1/0' }] };
    });
    const res = await chat('계속 실패하는 계산');
    expect(res.body.error.code).toBe('REPLAN_LIMIT');
    expect((await trace(res)).past_steps.map((p: any) => p.status)).toEqual(['failure', 'failure', 'failure']);
    expect(res.body.llm_calls).toBe(4); // intent + planner + 2 re-plans; the third failure stops before a model call
  });
});
