/**
 * Model calls per scenario for the assistant and supervisor agents next to their seeds' counts, and the
 * prompt-mode ToolCallParser's throughput.
 */
import { parseToolCallReply } from '../src/llm/prompt-tools/tool-call-parser';
import { createTestDatabase } from '../test/support/infra';
import { type ChatRequest, ScriptedModelServer } from '../test/support/model-server';
import { startApp } from '../test/support/test-app';
import { post, round } from './lib';

type Row = [string, string, string];

export function benchParser(): Row[] {
  const replies = [
    'Thought: 검색이 필요하다\nAction: search_knowledge_base\nAction Input: {"query": "휴가 정책"}',
    "<tool_call>calculator</tool_call><tool_input>{'expression': '6*7',}</tool_input>",
    '```json\n{"action": "get_weather", "action_input": {"city": "Seoul"}}\n```',
    'Thought: 충분하다\nFinal Answer: 연차는 15일입니다.',
    '<|python_tag|>{"name": "web_search", "parameters": {"query": "vLLM"}}',
    '그냥 평범한 답변입니다.',
  ];
  const tools = ['search_knowledge_base', 'calculator', 'get_weather', 'web_search'];
  for (let i = 0; i < 20_000; i++) parseToolCallReply(replies[i % replies.length], tools); // warm-up
  const n = 200_000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) parseToolCallReply(replies[i % replies.length], tools);
  const perSecond = n / ((performance.now() - t0) / 1000);
  return [['ToolCallParser throughput (6 reply shapes)', `${round(perSecond / 1000, 0)}k replies/s`, 'report']];
}

const isSupervisor = (r: ChatRequest) => String(r.messages[0]?.content).includes('수퍼바이저');

export async function benchAgentCalls(): Promise<Row[]> {
  const model = new ScriptedModelServer();
  await model.start();
  const db = await createTestDatabase('bench_agents');
  const app = await startApp({
    DATABASE_URL: db.url,
    LLM_BASE_URL: model.baseUrl,
    LLM_MODEL: 'bench',
    LLM_CACHE: 'false',
    LLM_MAX_RETRIES: '0',
    LOG_LEVEL: 'error',
  });
  const rows: Row[] = [];
  const turn = async (label: string, seed: number, agent: string, message: string, script: () => void) => {
    model.reset();
    script();
    const r = await post(app.url, '/v1/chat', { agent, message });
    rows.push([`${agent}: ${label} — model calls (seed)`, `${r.llm_calls} (${seed})`, `≤ ${seed}`]);
  };
  try {
    await post(app.url, '/v1/documents', { title: '휴가 규정', content: '# 연차\n\n연차 휴가는 입사 1년 후 15일이다.' });
    await turn('greeting', 2, 'assistant', '안녕하세요', () => model.enqueue({ content: '안녕하세요!' }));
    await turn('calculator', 3, 'assistant', '123 * 456 계산해줘', () =>
      model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '123*456' } }] }, { content: '56088' }),
    );
    await turn('RAG', 2, 'assistant', '회사 휴가 정책이 뭐야?', () => model.enqueue({ content: '15일입니다.' }));
    await turn('walk-through (model routes)', 4, 'supervisor', '입사하면 쉬는 날이 며칠이야?', () =>
      model.setResponder((req) => {
        if (isSupervisor(req)) {
          const seen = JSON.stringify(req.messages);
          return { content: seen.includes('에이전트 결과') ? 'Final Answer: 15일입니다.' : 'Delegate: rag_agent\nTask: 연차 일수 찾기' };
        }
        return req.messages.at(-1)?.role === 'tool'
          ? { content: '15일' }
          : { toolCalls: [{ name: 'search_knowledge_base', args: { query: '연차' } }] };
      }),
    );
    await turn('walk-through (rules route)', 4, 'supervisor', '회사 휴가 정책 알려줘', () =>
      model.setResponder((req) => {
        if (isSupervisor(req)) return { content: 'Final Answer: 15일입니다.' };
        return req.messages.at(-1)?.role === 'tool'
          ? { content: '15일' }
          : { toolCalls: [{ name: 'search_knowledge_base', args: { query: '휴가' } }] };
      }),
    );
  } finally {
    await app.close();
    await model.stop();
    await db.drop();
  }
  return rows;
}
