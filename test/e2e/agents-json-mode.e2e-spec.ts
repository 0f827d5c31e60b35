import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { ChatRequest } from '../support/model-server';
import { useService } from '../support/service-fixture';
import { http } from '../support/test-app';

const systemOf = (r: ChatRequest) => String(r.messages[0]?.content ?? '');
const formatOf = (r: ChatRequest) => (r.response_format?.type as string | undefined) ?? 'none';

/**
 * Every JSON decision (contract-qa check_tool_needed / planner / evaluator, assistant router, plan-execute
 * intent / planner / replanner) asks the endpoint for JSON when LLM_JSON_MODE allows it, and reads prose-wrapped
 * JSON when it does not; answers (respond, final_answer) are never constrained.
 */
describe.each([
  ['auto', 'accepting'],
  ['auto', 'rejecting'],
  ['off', 'accepting'],
] as const)('JSON decisions with LLM_JSON_MODE=%s, endpoint %s response_format', (jsonMode, endpoint) => {
  const svc = useService(`json_mode_${jsonMode}_${endpoint}`, {
    env: { LLM_MODEL: `m-${jsonMode}-${endpoint}`, LLM_MAX_RETRIES: '0', LLM_CACHE: 'false', LLM_JSON_MODE: jsonMode },
    model: { resetEach: true },
  });
  const { model } = svc;
  let contractId: string;
  const constrained = jsonMode === 'auto' && endpoint === 'accepting';

  beforeAll(async () => {
    const contract = readFileSync(join(__dirname, '..', 'fixtures', 'contracts', 'service-agreement.md'), 'utf8');
    contractId = (await http(svc.url, 'POST', '/v1/contracts', { title: '용역계약서', content: contract })).body.contract_id;
    await http(svc.url, 'POST', '/v1/documents', { title: '출장 규정', content: '# 출장비\n\n국내 출장 일비는 하루 3만 원이다.' });
  });

  beforeEach(() => {
    if (endpoint === 'rejecting') model.configure({ responseFormat: { json_schema: 'reject', json_object: 'reject' } });
  });
  /** the formats of the calls that were answered (a rejected attempt is retried without response_format) */
  const answeredFormats = () =>
    model.requests.filter((r, i) => !(endpoint === 'rejecting' && model.responseFormats[i] !== 'none')).map((r) => formatOf(r));
  const json = (value: unknown) => ({ json: value, wrap: 'prose' as const });

  it('contract-qa: check_tool_needed, planner and evaluator decide in JSON; respond is free text', async () => {
    model.setResponder((req) => {
      const sys = systemOf(req);
      if (sys.includes('질문 분석')) return json({ needs_tools: true, reasoning: '계약 질문' });
      if (sys.includes('계약서 분석 전문가')) return json({ tool: 'get_article_by_title', args: { titles: ['손해배상'] }, reasoning: '' });
      if (sys.includes('충분성')) {
        const done = String(req.messages.at(-1)?.content).includes('get_article_by_title');
        return json({ is_sufficient: done, reasoning: done ? '충분' : '더 필요', missing_info: null });
      }
      return { content: '을은 제12조 손해배상에 유의해야 합니다.' };
    });
    const res = await http(svc.url, 'POST', '/v1/chat', {
      agent: 'contract-qa',
      contract_id: contractId,
      message: '이 계약에서 을이 조심할 부분은?',
    });
    expect(res.body).toMatchObject({ response: '을은 제12조 손해배상에 유의해야 합니다.', error: null });
    const t = (await http(svc.url, 'GET', `/v1/sessions/${res.body.session_id}/runs/${res.body.run_id}/trace`)).body;
    expect(t.decision_log.filter((d: any) => d.by === 'model').map((d: any) => d.node)).toEqual(
      expect.arrayContaining(['check_tool_needed', 'planner', 'evaluator']),
    );
    expect(t.tool_history.map((h: any) => h.tool)).toContain('get_article_by_title');
    const formats = answeredFormats();
    expect(formats.at(-1)).toBe('none'); // respond
    expect(formats.slice(0, -1).every((f) => f === (constrained ? 'json_schema' : 'none'))).toBe(true);
  });

  it('assistant: the router decides in JSON', async () => {
    model.enqueue(json({ route: 'rag', reason: '사내 규정 질문' }), { content: '국내 출장 일비는 하루 3만 원입니다.' });
    const res = await http(svc.url, 'POST', '/v1/chat', { agent: 'assistant', message: '출장 가면 하루에 얼마 받아?' });
    expect(res.body).toMatchObject({ response: '국내 출장 일비는 하루 3만 원입니다.', metadata: { route: 'rag' } });
    expect(answeredFormats()).toEqual([constrained ? 'json_schema' : 'none', 'none']);
  });

  it('plan-execute: intent, planner and replanner decide in JSON; a {"steps": [...]} plan runs', async () => {
    model.enqueue(
      json({ intent: 'new_question', rewritten_query: '나눗셈', needs_tool: true, constraints: '' }),
      json({ steps: [{ step_id: 1, tool: 'calculator', input: '1/0' }] }),
      json({ steps: [{ step_id: 2, tool: 'calculator', input: '10/4' }] }),
      { content: '10/4 = 2.5 입니다.' },
    );
    const res = await http(svc.url, 'POST', '/v1/chat', { agent: 'plan-execute', message: '나눗셈 좀 해줘' });
    expect(res.body).toMatchObject({ response: '10/4 = 2.5 입니다.', error: null, metadata: { replan_count: 1 } });
    const decision = constrained ? ['json_schema', 'json_object', 'json_object'] : ['none', 'none', 'none'];
    expect(answeredFormats()).toEqual([...decision, 'none']);
  });
});
