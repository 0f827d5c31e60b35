import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { SCRIPTED_LLM, useService } from '../support/service-fixture';

type Schema = { required?: string[]; properties: Record<string, { example?: unknown; items?: { $ref?: string }; $ref?: string }> };

/** GET …/runs/{run_id}/trace: the one shape the OpenAPI document describes, for each of the five agents. */
describe('run trace shape, every agent', () => {
  const svc = useService('obs_trace_shape', { env: { ...SCRIPTED_LLM, LLM_TOOL_CALLING: 'native' }, model: { resetEach: true } });
  let schemas: Record<string, Schema>;
  let contractId: string;

  beforeAll(async () => {
    const doc = (await svc.http('GET', '/docs/openapi.json')).body as {
      paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: { $ref: string } }> }> } }>;
      components: { schemas: Record<string, Schema> };
    };
    const ref = doc.paths['/v1/sessions/{id}/runs/{runId}/trace'].get.responses['200'].content['application/json'].schema.$ref;
    expect(ref).toBe('#/components/schemas/RunTraceDto');
    schemas = doc.components.schemas;
    const contract = readFileSync(join(__dirname, '..', 'fixtures', 'contracts', 'service-agreement.md'), 'utf8');
    contractId = (await svc.http('POST', '/v1/contracts', { title: '계약', content: contract })).body.contract_id;
    await svc.http('POST', '/v1/documents', {
      title: '휴가 규정',
      content: '# 연차\n\n연차 휴가는 입사 1년 후 15일이다.',
      source: 'hr.md',
    });
  });

  it('is documented with examples for every field and nested item', () => {
    const trace = schemas.RunTraceDto;
    expect(trace.required).toEqual(
      expect.arrayContaining(['decision_log', 'plan', 'past_steps', 'tool_history', 'model_calls', 'node_timings', 'usage', 'details']),
    );
    expect(trace.properties.model_calls.items?.$ref).toBe('#/components/schemas/TraceModelCall');
    expect(trace.properties.node_timings.items?.$ref).toBe('#/components/schemas/TraceNodeTiming');
    for (const name of ['TraceModelCall', 'TraceNodeTiming', 'TraceUsage']) {
      for (const [field, p] of Object.entries(schemas[name].properties))
        expect([name, field, p.example !== undefined]).toEqual([name, field, true]);
    }
    for (const field of ['decision_log', 'plan', 'past_steps', 'tool_history', 'details'])
      expect(trace.properties[field].example).toBeDefined();
  });

  const scripts: Record<string, { body: Record<string, unknown>; replies: () => unknown[] }> = {
    react: {
      body: { message: '6 곱하기 7은?' },
      replies: () => [{ toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] }, { content: '42입니다.' }],
    },
    assistant: {
      body: { message: '123 * 456 계산해줘' },
      replies: () => [{ toolCalls: [{ name: 'calculator', args: { expression: '123 * 456' } }] }, { content: '56088입니다.' }],
    },
    'plan-execute': {
      body: { message: '2의 10제곱은 얼마야?' },
      replies: () => [
        { json: { intent: 'new_question', rewritten_query: '2^10', needs_tool: true, constraints: '' } },
        { json: [{ step_id: 1, tool: 'calculator', input: '2^10' }] },
        { content: '1024입니다.' },
      ],
    },
    'contract-qa': { body: { message: '제5조 알려줘' }, replies: () => [{ content: '제5조입니다.' }] },
    supervisor: {
      body: { message: '입사하면 쉬는 날이 며칠이야?' },
      replies: () => [
        { content: 'Thought: 내부 문서 질문\nDelegate: rag_agent\nTask: 연차 휴가 정책을 찾아 요약하라' },
        { toolCalls: [{ name: 'search_knowledge_base', args: { query: '연차 휴가' } }] },
        { content: '연차 휴가는 입사 1년 후 15일입니다.' },
        { content: 'Thought: 충분하다\nFinal Answer: 연차 휴가는 15일입니다.' },
      ],
    },
  };

  it.each(Object.keys(scripts))('%s: the documented fields, model calls with timing and tokens, node timings', async (agent) => {
    const { body, replies } = scripts[agent];
    svc.model.enqueue(...(replies() as Parameters<typeof svc.model.enqueue>));
    const res = await svc.http('POST', '/v1/chat', { agent, ...body, ...(agent === 'contract-qa' ? { contract_id: contractId } : {}) });
    expect(res.status).toBe(200);
    expect(res.body.error).toBeNull();
    const t = (await svc.http('GET', `/v1/sessions/${res.body.session_id}/runs/${res.body.run_id}/trace`)).body;

    // exactly the documented fields (budget only when a budget stopped the run, taint only when untrusted text was in it)
    const documented = Object.keys(schemas.RunTraceDto.properties).filter((k) => k !== 'budget' && k !== 'taint');
    expect(
      Object.keys(t)
        .filter((k) => k !== 'taint')
        .sort(),
    ).toEqual(documented.sort());
    if (agent === 'supervisor') expect(t.taint).toEqual({ inherited: false, sources: ['tool search_knowledge_base'] }); // its sub-agent retrieved text
    expect(t).toMatchObject({ run_id: res.body.run_id, agent, status: 'completed', attempts: 1 });
    for (const list of ['decision_log', 'plan', 'past_steps', 'tool_history']) expect(Array.isArray(t[list])).toBe(true);
    expect(typeof t.details).toBe('object');

    expect(t.model_calls.length).toBe(res.body.llm_calls);
    for (const c of t.model_calls) {
      expect(c).toEqual(expect.objectContaining({ node: expect.any(String), ms: expect.any(Number), attempt: 1 }));
      expect(c.prompt_tokens).toBeGreaterThan(0);
      expect(c.completion_tokens).toBeGreaterThan(0);
    }
    expect(t.usage).toEqual({
      llm_calls: res.body.llm_calls,
      prompt_tokens: t.model_calls.reduce((n: number, c: { prompt_tokens: number }) => n + c.prompt_tokens, 0),
      completion_tokens: t.model_calls.reduce((n: number, c: { completion_tokens: number }) => n + c.completion_tokens, 0),
    });
    expect(t.node_timings.length).toBeGreaterThanOrEqual(2);
    t.node_timings.forEach((n: { node: string; step: number; ms: number }, i: number) => {
      expect(n).toEqual({ node: expect.any(String), step: i + 1, ms: expect.any(Number) });
      expect(n.ms).toBeGreaterThanOrEqual(0);
    });
    // every node that called the model shows up among the timed steps (supervisor sub-agent calls run inside a node)
    const timed = new Set(t.node_timings.map((n: { node: string }) => n.node));
    if (agent !== 'supervisor') for (const c of t.model_calls) expect(timed.has(c.node) ? c.node : `${c.node} not timed`).toBe(c.node);
    if (agent !== 'contract-qa') expect(t.tool_history.length).toBeGreaterThan(0);
  });
});
