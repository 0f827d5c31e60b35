/**
 * contract-qa: search latency over a 200-article contract on the real Postgres (target p50 ≤ 10 ms), and the
 * model calls per scenario next to the seed's flow.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ContractsService } from '../src/knowledge/contracts/contracts.service';
import { generateLargeContract } from '../test/fixtures/contracts/generate-large-contract';
import { createTestDatabase } from '../test/support/infra';
import { ScriptedModelServer } from '../test/support/model-server';
import { startApp } from '../test/support/test-app';
import { percentile, post, round } from './lib';

type Row = [string, string, string];
const QUERIES = [
  '해지 조건',
  '보안 관리',
  '대금 정산',
  '데이터 제공 책임',
  '검수 일정',
  '인력 변경 승인',
  '장비 반환',
  '품질 점검 보고',
  '산출물 이전',
  '교육 감사',
];

export async function benchContractQa(): Promise<Row[]> {
  const model = new ScriptedModelServer();
  await model.start();
  const db = await createTestDatabase('bench_cqa');
  const app = await startApp({
    DATABASE_URL: db.url,
    LLM_BASE_URL: model.baseUrl,
    LLM_MODEL: 'bench',
    LLM_CACHE: 'false',
    LLM_MAX_RETRIES: '0',
    LOG_LEVEL: 'error',
    MAX_CONTRACT_CHARS: '2000000',
  });
  const rows: Row[] = [];
  try {
    const large = await post(app.url, '/v1/contracts', { title: 'large', content: generateLargeContract(200) });
    const contracts = app.app.get(ContractsService);
    for (let i = 0; i < 20; i++) await contracts.searchArticles(large.contract_id, QUERIES[i % QUERIES.length], 5, 'default');
    const ms: number[] = [];
    for (let i = 0; i < 300; i++) {
      const t0 = performance.now();
      await contracts.searchArticles(large.contract_id, QUERIES[i % QUERIES.length], 5, 'default');
      ms.push(performance.now() - t0);
    }
    rows.push([
      `contract-qa: hybrid search over ${large.articles.length} articles, p50 / p99 (300 queries)`,
      `${round(percentile(ms, 50), 2)} / ${round(percentile(ms, 99), 2)} ms`,
      'p50 ≤ 10 ms',
    ]);

    const fixture = readFileSync(join(__dirname, '..', '..', '..', 'test', 'fixtures', 'contracts', 'service-agreement.md'), 'utf8');
    const c = await post(app.url, '/v1/contracts', { title: 'service', content: fixture });
    const sys = (r: { messages: Array<{ content: unknown }> }) => String(r.messages[0]?.content ?? '');
    model.setResponder((req) => {
      if (sys(req).includes('충분성'))
        return { json: { is_sufficient: String(req.messages.at(-1)?.content).includes('제10조'), reasoning: '' } };
      if (sys(req).includes('질문 분석')) return { json: { needs_tools: true, reasoning: '' } };
      return { content: '답변' };
    });
    const scenario = async (label: string, seed: string, message: string) => {
      const r = await post(app.url, '/v1/chat', { agent: 'contract-qa', contract_id: c.contract_id, message });
      rows.push([`contract-qa: ${label} — model calls`, String(r.llm_calls), seed]);
    };
    await scenario(
      '"해지 조건이 뭐야?" (seed walk-through)',
      'seed 6 (check 1 + planner 2 + evaluator 2 + respond 1)',
      '해지 조건이 뭐야?',
    );
    await scenario('"제5조 알려줘" (direct article)', 'respond only', '제5조 알려줘');
    await scenario('"안녕하세요" (greeting)', 'seed 1 (respond)', '안녕하세요');
    await scenario('"오늘 날씨 어때?" (out of scope)', '0', '오늘 날씨 어때?');
  } finally {
    await app.close();
    await model.stop();
    await db.drop();
  }
  return rows;
}
