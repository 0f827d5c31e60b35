import { useService } from '../support/service-fixture';
import { http, startApp } from '../support/test-app';

/**
 * LLM_TOOL_CALLING=prompt: no `tools` reach the endpoint; the ReAct text format is parsed instead. The same
 * turns as the native-mode suites, for the react and assistant agents.
 */
describe('prompt-based tool calling over HTTP', () => {
  const svc = useService('prompt_mode', {
    env: { LLM_MODEL: 'open-model', LLM_MAX_RETRIES: '0', LLM_CACHE: 'false', LLM_TOOL_CALLING: 'prompt' },
    model: { resetEach: true },
  });
  const { model } = svc;

  it.each(['react', 'assistant'])('%s: Action / Observation / Final Answer, two model calls, no native tools', async (agent) => {
    model.enqueue(
      { content: 'Thought: 계산기가 필요합니다.\nAction: calculator\nAction Input: {"expression": "123 * 456"}' },
      { content: 'Thought: 결과를 얻었습니다.\nFinal Answer: 123 × 456 = 56088 입니다.' },
    );
    const res = await http(svc.url, 'POST', '/v1/chat', { agent, message: '123 곱하기 456은 얼마야?' });
    expect(res.body).toMatchObject({ response: '123 × 456 = 56088 입니다.', llm_calls: 2, tools_used: ['calculator'], error: null });
    expect(model.requests.every((r) => r.tools === undefined)).toBe(true);
    expect(String(model.requests[0].messages[0].content)).toContain('Action Input: {"인자명": "값"}');
    expect(model.requests[1].messages.at(-1)).toMatchObject({ role: 'user', content: 'Observation: 56088' });
  });

  it('per-agent mode: LLM_TOOL_CALLING_AGENTS overrides the default for one agent', async () => {
    const other = await startApp({ ...svc.env, LLM_TOOL_CALLING: 'native', LLM_TOOL_CALLING_AGENTS: 'assistant:prompt' });
    try {
      model.enqueue({ content: 'Final Answer: 안녕하세요' }, { content: '안녕하세요' });
      await http(other.url, 'POST', '/v1/chat', { agent: 'assistant', message: '안녕' });
      await http(other.url, 'POST', '/v1/chat', { agent: 'react', message: 'hello' });
      expect(model.requests[0].tools).toBeUndefined();
      expect(String(model.requests[0].messages[0].content)).toContain('Action Input');
      expect(model.requests[1].tools?.length).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  });

  it('recovers from a reply in no known format with a format observation', async () => {
    model.enqueue(
      { content: 'Action: calculator\nAction Input: {"expression": ' },
      { content: 'Action: calculator\nAction Input: {"expression": "2+2"}' },
      { content: 'Final Answer: 4' },
    );
    const res = await http(svc.url, 'POST', '/v1/chat', { agent: 'react', message: 'two plus two, please' });
    expect(res.body).toMatchObject({ response: '4', llm_calls: 3, tools_used: ['calculator'] });
    expect(String(model.requests[1].messages.at(-1)!.content)).toMatch(/^Observation: The Action Input for calculator is not valid JSON/);
  });
});
