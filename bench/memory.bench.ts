/**
 * Memory: a 50-turn conversation with the assistant agent; prompt tokens of turn 50 with and without
 * summarisation (goal ≥ 85 % fewer; the seed estimates 90 %), and whether facts of turns 1–5 reach turn 50.
 */
import { createTestDatabase } from '../test/support/infra';
import { type ChatRequest, ScriptedModelServer } from '../test/support/model-server';
import { startApp } from '../test/support/test-app';
import { get, post, round } from './lib';

const FACTS = ['내 이름은 철수야', '프로젝트 마감은 3월 15일이야', '예산은 1억원이야', '팀원은 다섯 명이야', '회의는 매주 월요일 10시야'];
const filler = (i: number) => `${i}번째 질문: 회의록 정리 방법에 대해 ${'자세한 설명과 예시를 들어 '.repeat(8)}알려줘.`;
const answer = (i: number) => `${i}번째 답변: ${'회의록은 날짜, 참석자, 결정 사항, 후속 작업 순서로 정리하면 좋습니다. '.repeat(10)}`;

async function conversation(maxMessages: number): Promise<{ promptTokens: number; request: ChatRequest }> {
  const model = new ScriptedModelServer();
  await model.start();
  const db = await createTestDatabase('bench_memory');
  const app = await startApp({
    DATABASE_URL: db.url,
    LLM_BASE_URL: model.baseUrl,
    LLM_MODEL: 'bench',
    LLM_CACHE: 'false',
    LLM_MAX_RETRIES: '0',
    LOG_LEVEL: 'error',
    ASSISTANT_MAX_MESSAGES: String(maxMessages),
  });
  let turn = 0;
  model.setResponder((req) => {
    const system = String(req.messages[0]?.content ?? '');
    // the summariser keeps the facts it saw (as a real model is asked to), plus a short digest
    if (system.includes('대화 요약 전문가')) {
      const seen = req.messages.map((m) => String(m.content)).join('\n');
      return { content: `${FACTS.filter((f) => seen.includes(f)).join('; ')}; 회의록 정리 방법을 여러 번 물었다.` };
    }
    return { content: answer(turn) };
  });
  try {
    let sid: string | undefined;
    let last: { session_id: string; run_id: string } | undefined;
    for (turn = 1; turn <= 50; turn++) {
      const message = turn <= FACTS.length ? FACTS[turn - 1] : turn === 50 ? '아까 말한 프로젝트 마감일이 언제라고 했지?' : filler(turn);
      last = await post(app.url, '/v1/chat', { agent: 'assistant', message, ...(sid ? { session_id: sid } : {}) });
      sid = last!.session_id;
    }
    const trace = await get(app.url, `/v1/sessions/${last!.session_id}/runs/${last!.run_id}/trace`);
    const agentCall = trace.model_calls.filter((c: { node: string }) => c.node === 'agent').at(-1);
    return { promptTokens: agentCall.prompt_tokens, request: model.requests.at(-1)! };
  } finally {
    await app.close();
    await model.stop();
    await db.drop();
  }
}

export async function benchMemory(): Promise<Array<[string, string, string]>> {
  const withSummary = await conversation(10);
  const without = await conversation(100_000);
  const saved = 1 - withSummary.promptTokens / without.promptTokens;
  const prompt = JSON.stringify(withSummary.request.messages);
  const factsKept = FACTS.filter((f) => prompt.includes(f)).length;
  return [
    ['assistant, 50-turn conversation: prompt tokens of turn 50 without summarisation', String(without.promptTokens), '—'],
    [
      '… with summarisation (10 messages, keep 5, 3 summaries)',
      `${withSummary.promptTokens} (${round(saved * 100)} % fewer)`,
      '≥ 85 % fewer',
    ],
    ["… facts of turns 1–5 present in turn 50's prompt", `${factsKept} / ${FACTS.length}`, '5 / 5'],
  ];
}
