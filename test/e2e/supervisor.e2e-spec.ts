import type { ChatRequest } from '../support/model-server';
import { useService } from '../support/service-fixture';
import { http } from '../support/test-app';

const isSupervisor = (r: ChatRequest) => String(r.messages[0]?.content).includes('수퍼바이저');

/** Seed 003 end to end: supervisor → rag_agent (ReAct) → supervisor, in prompt and in native tool-calling mode. */
describe.each(['prompt', 'native'] as const)('supervisor agent (%s tool calling)', (mode) => {
  const svc = useService(`supervisor_${mode}`, {
    env: {
      LLM_MODEL: 'open-model',
      LLM_MAX_RETRIES: '0',
      LLM_CACHE: 'false',
      LLM_TOOL_CALLING: mode,
      SUPERVISOR_AGENT_MAX_ITERATIONS: '3',
    },
    model: { resetEach: true },
  });
  const { model } = svc;

  beforeAll(async () => {
    await http(svc.url, 'POST', '/v1/documents', {
      title: '휴가 규정',
      content: '# 연차\n\n연차 휴가는 입사 1년 후 15일이다.',
      source: 'hr.md',
    });
  });

  const chat = (message: string) => http(svc.url, 'POST', '/v1/chat', { agent: 'supervisor', message });
  const toolCall = (name: string, args: Record<string, unknown>) =>
    mode === 'prompt'
      ? { content: `Thought: 도구가 필요하다\nAction: ${name}\nAction Input: ${JSON.stringify(args)}` }
      : { toolCalls: [{ name, args }] };
  const answer = (text: string) => (mode === 'prompt' ? { content: `Thought: 답할 수 있다\nFinal Answer: ${text}` } : { content: text });

  it("runs the seed's walk-through: supervisor 2 + agent 2 model calls", async () => {
    model.enqueue(
      { content: 'Thought: 내부 문서 질문\nDelegate: rag_agent\nTask: 연차 휴가 정책을 찾아 요약하라' },
      toolCall('search_knowledge_base', { query: '연차 휴가' }),
      answer('연차 휴가는 입사 1년 후 15일입니다.'),
      { content: 'Thought: 충분하다\nFinal Answer: 연차 휴가는 입사 1년 후 15일입니다. (휴가 규정)' },
    );
    const res = await chat('입사하면 쉬는 날이 며칠이야?');
    expect(res.body).toMatchObject({
      response: '연차 휴가는 입사 1년 후 15일입니다. (휴가 규정)',
      llm_calls: 4,
      tool_calls: [{ name: 'search_knowledge_base', args: { query: '연차 휴가' }, status: 'success', agent: 'rag_agent' }],
      metadata: { delegations: [{ agent: 'rag_agent', task: '연차 휴가 정책을 찾아 요약하라', order: 1 }] },
    });
    // the sub-agent sees the user's own words beside the supervisor's task
    expect(String(model.requests[1].messages.at(-1)?.content)).toMatch(
      /입사하면 쉬는 날이 며칠이야\?[\s\S]*연차 휴가 정책을 찾아 요약하라/,
    );
    // and the supervisor's answer cites what its agent found
    expect(res.body.sources).toEqual([expect.objectContaining({ kind: 'document', title: '휴가 규정', ref: 'hr.md' })]);
    if (mode === 'prompt') expect(model.requests.every((r) => r.tools === undefined)).toBe(true);
    else expect(model.requests[1].tools?.map((t: any) => t.function.name)).toEqual(['search_knowledge_base']);
    // the supervisor saw the agent's result before answering
    expect(String(model.requests[3].messages.at(-1)?.content)).toMatch(/\[에이전트 결과\]\n1\. rag_agent[\s\S]*15일/);
  });

  it('gives the sub-agent the conversation so far', async () => {
    model.enqueue({ content: 'Final Answer: 반가워요, 민수님.' });
    const first = await http(svc.url, 'POST', '/v1/chat', { agent: 'supervisor', message: '내 이름은 민수이고 인사팀 소속이야' });
    model.reset();
    model.enqueue(
      { content: 'Delegate: rag_agent\nTask: 휴가 규정 검색' },
      toolCall('search_knowledge_base', { query: '연차' }),
      answer('연차는 15일입니다.'),
      { content: 'Final Answer: 민수님, 연차는 15일입니다.' },
    );
    const res = await http(svc.url, 'POST', '/v1/chat', {
      agent: 'supervisor',
      message: '우리 팀 휴가 며칠이야?',
      session_id: first.body.session_id,
    });
    expect(res.body.response).toBe('민수님, 연차는 15일입니다.');
    const sub = model.requests[1].messages.map((m) => String(m.content)).join('\n');
    expect(sub).toMatch(/내 이름은 민수이고 인사팀 소속이야[\s\S]*반가워요, 민수님[\s\S]*우리 팀 휴가 며칠이야\?[\s\S]*휴가 규정 검색/);
  });

  it('routes by rules when the request clearly belongs to one agent (one supervisor call fewer)', async () => {
    model.enqueue(toolCall('search_knowledge_base', { query: '휴가 정책' }), answer('연차는 15일입니다.'), {
      content: 'Final Answer: 연차는 15일입니다.',
    });
    const res = await chat('회사 휴가 정책 알려줘');
    expect(res.body).toMatchObject({ llm_calls: 3, metadata: { delegations: [{ agent: 'rag_agent', order: 1 }] } });
    expect(model.requests.filter(isSupervisor)).toHaveLength(1);
  });

  it('answers a delegation to an unknown agent with a correction, not an execution', async () => {
    model.enqueue(
      { content: 'Delegate: hr_agent\nTask: 휴가 찾기' },
      { content: 'Thought: 목록에 있는 에이전트로\nFinal Answer: 인사 담당 에이전트는 없지만 연차는 15일입니다.' },
    );
    const res = await chat('인사팀한테 물어봐 줘');
    expect(res.body.response).toBe('인사 담당 에이전트는 없지만 연차는 15일입니다.');
    expect(res.body.tool_calls).toEqual([]);
    expect(String(model.requests[1].messages.at(-1)?.content)).toMatch(
      /"hr_agent"라는 에이전트는 없습니다\. 다음 중에서 고르세요: rag_agent, external_agent, internal_agent/,
    );
    const trace = await http(svc.url, 'GET', `/v1/sessions/${res.body.session_id}/runs/${res.body.run_id}/trace`);
    expect(trace.body.decision_log).toEqual([expect.objectContaining({ step: 'correction' })]);
  });

  it('stops a sub-agent at its iteration limit and still answers', async () => {
    model.setResponder((req) =>
      isSupervisor(req) ? { content: 'Final Answer: 계산을 끝내지 못했습니다.' } : toolCall('calculator', { expression: '1+1' }),
    );
    const res = await chat('123 * 456 계산해줘');
    model.setResponder(undefined);
    expect(res.body.response).toBe('계산을 끝내지 못했습니다.');
    expect(res.body.tool_calls).toHaveLength(3);
    expect(model.requests.filter((r) => !isSupervisor(r))).toHaveLength(3); // SUPERVISOR_AGENT_MAX_ITERATIONS
    expect(String(model.requests.at(-1)!.messages.at(-1)?.content)).toMatch(/internal_agent: 반복 한도\(3회\)/);
  });

  it('treats a supervisor reply in no known format as its answer', async () => {
    model.enqueue({ content: '죄송하지만 그 질문은 이해하지 못했어요.' });
    const res = await chat('음...');
    expect(res.body).toMatchObject({ response: '죄송하지만 그 질문은 이해하지 못했어요.', llm_calls: 1, error: null });
  });
});
