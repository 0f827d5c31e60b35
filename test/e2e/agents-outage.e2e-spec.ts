import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { ChatRequest } from '../support/model-server';
import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { http } from '../support/test-app';

const systemOf = (r: ChatRequest) => String(r.messages[0]?.content ?? '');
const outage = { fault: 'http_500' } as const;

/**
 * A model outage in the middle of a turn ends every agent the same way: `MODEL_UNAVAILABLE`, a user-facing
 * response, the partial trace kept on the run, and a degraded answer from what was collected when there is one.
 */
describe('model outage mid-graph, every agent', () => {
  const svc = useService('agents_outage', { env: SCRIPTED_LLM, model: { resetEach: true } });
  const { model } = svc;
  let contractId: string;

  beforeAll(async () => {
    const contract = readFileSync(join(__dirname, '..', 'fixtures', 'contracts', 'service-agreement.md'), 'utf8');
    contractId = (await http(svc.url, 'POST', '/v1/contracts', { title: '용역계약서', content: contract })).body.contract_id;
  });

  const chat = (body: Record<string, unknown>) => http(svc.url, 'POST', '/v1/chat', body);
  const trace = (r: { body: { session_id: string; run_id: string } }) =>
    http(svc.url, 'GET', `/v1/sessions/${r.body.session_id}/runs/${r.body.run_id}/trace`).then((t) => t.body);
  const expectFailedRun = async (res: { body: any }) => {
    expect(res.body.error).toMatchObject({ code: 'MODEL_UNAVAILABLE' });
    expect(res.body.response).toMatch(/언어 모델에 연결할 수 없/);
    expect((await http(svc.url, 'GET', `/v1/jobs/${res.body.run_id}`)).body.status).toBe('failed');
  };

  it('react: the tool result so far becomes a degraded answer', async () => {
    model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] }, outage);
    const res = await chat({ agent: 'react', message: '6 곱하기 7은 얼마야?' });
    await expectFailedRun(res);
    expect(res.body).toMatchObject({ metadata: { degraded: true }, tool_calls: [{ name: 'calculator', status: 'success' }] });
    expect(res.body.response).toMatch(/calculator: 42/);
    expect((await trace(res)).tool_history).toHaveLength(1);
  });

  it('assistant: the tool result so far becomes a degraded answer', async () => {
    model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '12*12' } }] }, outage);
    const res = await chat({ agent: 'assistant', message: '12*12 계산해줘' });
    await expectFailedRun(res);
    expect(res.body).toMatchObject({ metadata: { degraded: true }, tool_calls: [{ name: 'calculator', status: 'success' }] });
    expect(res.body.response).toMatch(/144/);
  });

  it('contract-qa: respond fails → the collected articles, with their sources and the decision log', async () => {
    model.setResponder((req) =>
      systemOf(req).includes('충분성') ? { json: { is_sufficient: true, reasoning: '충분', missing_info: null } } : outage,
    );
    const res = await chat({ agent: 'contract-qa', contract_id: contractId, message: '해지 조건이 뭐야?' });
    await expectFailedRun(res);
    expect(res.body.metadata.degraded).toBe(true);
    expect(res.body.response).toMatch(/\[제10조 계약의 해지\][\s\S]*30일/);
    expect(res.body.sources.map((s: any) => s.ref)).toContain('제10조');
    const t = await trace(res);
    expect(t.decision_log.map((d: any) => d.node)).toEqual(['check_tool_needed', 'planner', 'evaluator', 'read_found']);
    expect(t.tool_history.length).toBeGreaterThanOrEqual(3);

    // the session goes on once the model is back
    model.reset();
    model.setResponder((req) =>
      systemOf(req).includes('충분성')
        ? { json: { is_sufficient: true, reasoning: '충분', missing_info: null } }
        : { content: '30일 전 서면 통지로 해지할 수 있습니다.' },
    );
    const again = await chat({
      agent: 'contract-qa',
      contract_id: contractId,
      message: '해지 조건이 뭐야?',
      session_id: res.body.session_id,
    });
    expect(again.body).toMatchObject({ error: null, response: '30일 전 서면 통지로 해지할 수 있습니다.' });
  });

  it.each([
    ['a malformed body', { fault: 'malformed' } as const],
    ['a rate limit', { fault: 'http_429' } as const],
  ])('contract-qa: %s from the model ends the same way', async (_name, fault) => {
    model.setResponder((req) =>
      systemOf(req).includes('충분성') ? { json: { is_sufficient: true, reasoning: '충분', missing_info: null } } : fault,
    );
    const res = await chat({ agent: 'contract-qa', contract_id: contractId, message: '해지 조건이 뭐야?' });
    await expectFailedRun(res);
    expect(res.body.metadata.degraded).toBe(true);
  });

  it('contract-qa: an outage before anything was collected still answers MODEL_UNAVAILABLE', async () => {
    model.setResponder(() => outage);
    const res = await chat({ agent: 'contract-qa', contract_id: contractId, message: '이 계약에서 을이 조심할 부분은?' });
    await expectFailedRun(res);
    expect(res.body.metadata.degraded).toBeFalsy();
  });

  it('supervisor: the sub-agent results so far become a degraded answer', async () => {
    model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '123*456' } }] }, { content: '123 × 456 = 56088' }, outage);
    const res = await chat({ agent: 'supervisor', message: '123 * 456 계산해줘' });
    await expectFailedRun(res);
    expect(res.body).toMatchObject({ metadata: { degraded: true }, tool_calls: [{ name: 'calculator', agent: 'internal_agent' }] });
    expect(res.body.response).toMatch(/56088/);
    const t = await trace(res);
    expect(t.decision_log).toEqual([expect.objectContaining({ step: 'delegate', agent: 'internal_agent' })]);
  });

  it('supervisor: an outage inside a sub-agent keeps its tool calls and their results', async () => {
    model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '123*456' } }] }, outage);
    const res = await chat({ agent: 'supervisor', message: '123 * 456 계산해줘' });
    await expectFailedRun(res);
    expect(res.body).toMatchObject({ metadata: { degraded: true }, tool_calls: [{ name: 'calculator', agent: 'internal_agent' }] });
    expect(res.body.response).toMatch(/56088/);
  });

  it('supervisor: an outage on its first call', async () => {
    model.enqueue(outage);
    const res = await chat({ agent: 'supervisor', message: '프로젝트 일정 어떻게 돼?' });
    await expectFailedRun(res);
    expect(res.body.metadata.degraded).toBeFalsy();
  });

  it('plan-execute: the executed steps become a degraded answer; past_steps are kept', async () => {
    model.enqueue(
      { json: { intent: 'new_question', rewritten_query: '1234 × 5678', needs_tool: true, constraints: '' } },
      { json: [{ step_id: 1, tool: 'calculator', input: '1234 * 5678' }] },
      outage,
    );
    const res = await chat({ agent: 'plan-execute', message: '1234 곱하기 5678은 얼마야?' });
    await expectFailedRun(res);
    expect(res.body.metadata.degraded).toBe(true);
    expect(res.body.response).toMatch(/7006652/);
    expect((await trace(res)).past_steps).toEqual([expect.objectContaining({ status: 'success', output: '7006652' })]);
  });

  it('plan-execute: an outage at the planner', async () => {
    model.enqueue({ json: { intent: 'new_question', rewritten_query: '환율', needs_tool: true, constraints: '' } }, outage);
    const res = await chat({ agent: 'plan-execute', message: '오늘 환율 알려줘' });
    await expectFailedRun(res);
    expect((await trace(res)).decision_log).toEqual([expect.objectContaining({ node: 'intent_classifier', by: 'model' })]);
  });
});
