import { resetBreakers } from '../../src/llm/circuit-breaker';
import { resetToolCallingMemory } from '../../src/llm/tool-binding';
import { useService } from '../support/service-fixture';
import { http } from '../support/test-app';

/**
 * The model layer over HTTP with default settings (LLM_TOOL_CALLING=auto, LLM_JSON_MODE=auto): an open model
 * served without tool support (vLLM / Ollama answers), and a model endpoint that keeps failing (breaker).
 */
describe('model endpoints as they really behave', () => {
  const svc = useService('model_endpoints', {
    env: {
      LLM_MODEL: 'open-model',
      LLM_MAX_RETRIES: '0',
      LLM_CACHE: 'false',
      LLM_BREAKER_FAILURES: '2',
      LLM_BREAKER_COOLDOWN_MS: '60000',
    },
    model: { resetEach: true },
  });
  const { model } = svc;

  beforeEach(() => {
    resetBreakers();
    resetToolCallingMemory();
  });

  it.each([['refuse_vllm' as const], ['refuse_ollama' as const]])(
    'tools refused (%s): the turn is answered in the ReAct format, and later turns send no tools',
    async (refusal) => {
      model.configure({ tools: refusal });
      model.enqueue(
        { content: 'Thought: 계산기가 필요합니다.\nAction: calculator\nAction Input: {"expression": "123 * 456"}' },
        { content: 'Final Answer: 123 × 456 = 56088 입니다.' },
        { content: 'Final Answer: 천만에요.' },
      );
      const res = await http(svc.url, 'POST', '/v1/chat', { agent: 'react', message: '123 곱하기 456은 얼마야?' });
      expect(res.status).toBe(200);
      // the refused request reached the endpoint and is counted; then the two ReAct-format calls
      expect(res.body).toMatchObject({ response: '123 × 456 = 56088 입니다.', tools_used: ['calculator'], error: null, llm_calls: 3 });
      expect(model.requests.map((r) => Boolean(r.tools?.length))).toEqual([true, false, false]);

      const next = await http(svc.url, 'POST', '/v1/chat', { agent: 'react', message: '고마워, 그런데 하나만 더 물어봐도 돼?' });
      expect(next.body).toMatchObject({ response: '천만에요.', error: null, llm_calls: 1 });
      expect(model.requests.map((r) => Boolean(r.tools?.length))).toEqual([true, false, false, false]);
    },
  );

  it('a failing endpoint opens the breaker: later turns end MODEL_UNAVAILABLE at once, without calling it', async () => {
    model.setResponder(() => ({ fault: 'http_500' }));
    for (let i = 0; i < 2; i++) {
      const res = await http(svc.url, 'POST', '/v1/chat', { agent: 'react', message: `hello number ${i}` });
      expect(res.body.error).toMatchObject({ code: 'MODEL_UNAVAILABLE' });
    }
    expect(model.callCount).toBe(2);
    const t0 = Date.now();
    const res = await http(svc.url, 'POST', '/v1/chat', { agent: 'react', message: 'hello once more' });
    expect(res.status).toBe(200);
    expect(res.body.error).toMatchObject({ code: 'MODEL_UNAVAILABLE', message: expect.stringMatching(/circuit breaker is open/) });
    expect(typeof res.body.response).toBe('string');
    expect(res.body.response.length).toBeGreaterThan(0);
    expect(model.callCount).toBe(2);
    expect(Date.now() - t0).toBeLessThan(2_000);
  });
});
