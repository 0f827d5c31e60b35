/** plan-execute: model calls for plans of 1, 3 and 10 steps (must stay 3) and the executor's cost per step. */
import { createTestDatabase } from '../test/support/infra';
import { type ChatRequest, ScriptedModelServer } from '../test/support/model-server';
import { startApp } from '../test/support/test-app';
import { get, percentile, post, round } from './lib';

type Row = [string, string, string];

export async function benchPlanExecute(): Promise<Row[]> {
  const model = new ScriptedModelServer();
  await model.start();
  const db = await createTestDatabase('bench_pe');
  const app = await startApp({
    DATABASE_URL: db.url,
    LLM_BASE_URL: model.baseUrl,
    LLM_MODEL: 'bench',
    LLM_CACHE: 'false',
    LLM_MAX_RETRIES: '0',
    LOG_LEVEL: 'error',
  });
  const rows: Row[] = [];
  let steps = 1;
  const sys = (r: ChatRequest) => String(r.messages[0]?.content ?? '');
  model.setResponder((req) => {
    if (sys(req).includes('의도 분류기'))
      return { json: { intent: 'new_question', rewritten_query: 'calc', needs_tool: true, constraints: '' } };
    if (sys(req).includes('계획 수립기'))
      return { json: Array.from({ length: steps }, (_, i) => ({ step_id: i + 1, tool: 'calculator', input: `${i + 1} * 3` })) };
    return { content: 'done' };
  });
  try {
    for (const n of [1, 3, 10]) {
      steps = n;
      const r = await post(app.url, '/v1/chat', { agent: 'plan-execute', message: `run a ${n}-step calculation` });
      rows.push([`plan-execute: plan of ${n} step(s) — model calls`, String(r.llm_calls), '3']);
    }
    steps = 10;
    const perStep: number[] = [];
    for (let i = 0; i < 30; i++) {
      const r = await post(app.url, '/v1/chat', { agent: 'plan-execute', message: `ten steps, round ${i}` });
      const t = await get(app.url, `/v1/sessions/${r.session_id}/runs/${r.run_id}/trace`);
      perStep.push(...t.past_steps.map((p: { duration_ms: number }) => p.duration_ms));
    }
    rows.push([
      'plan-execute: executor time per step (calculator), p50 / p99',
      `${round(percentile(perStep, 50), 2)} / ${round(percentile(perStep, 99), 2)} ms`,
      'report',
    ]);
  } finally {
    await app.close();
    await model.stop();
    await db.drop();
  }
  return rows;
}
